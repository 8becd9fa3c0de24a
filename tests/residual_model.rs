//! The int8 residual network (`examples/residual.rs`): fully connected layers, a skip
//! connection adding tensors of different scales and a broadcast constant bias give the
//! `tflite-micro` interpreter's int8 outputs on every one of the 1000 committed inputs
//! (`examples/residual/expected.txt`, made with the model by
//! `examples/residual/make_model.py`).

#[path = "../examples/residual/network.rs"]
mod network;

#[test]
fn residual_model_outputs_are_tflm_s_on_1000_inputs() {
    let mut count = 0;
    let mut distinct = std::collections::BTreeSet::new();
    for (x, want) in network::expected() {
        assert_eq!(network::forward(x).unwrap(), want, "input {x:?}");
        distinct.extend(want);
        count += 1;
    }
    assert_eq!(count, 1000);
    assert!(distinct.len() > 100, "{}", distinct.len());
    // The network's input parameters are the `.tflite`'s, not a default.
    assert_ne!(network::INPUT.scale(), 1.0);
    // Input 8, layers of 16 and 8, the skip sum 8, layer of 4, output 4.
    assert_eq!(network::ACTIVATION_BYTES, 48);
}

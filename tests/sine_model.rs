//! The int8 sine model (`examples/sine.rs`): shaped's three fully connected layers give the
//! `tflite-micro` interpreter's int8 output on every one of the 1000 committed inputs
//! (`examples/sine/expected.txt`, made with the model by `examples/sine/make_model.py`).

#[path = "../examples/sine/network.rs"]
mod network;

#[test]
fn sine_model_outputs_are_tflm_s_on_1000_inputs() {
    let mut count = 0;
    let mut distinct = std::collections::BTreeSet::new();
    for (x, input, want) in network::expected() {
        let got = network::forward(input).unwrap();
        assert_eq!(got, want, "x = {x}");
        distinct.insert(want);
        // And it is a sine: the dequantized output within 0.25 of sin(x) (the model was
        // trained on noisy samples; its validation error is 0.014 squared).
        let q = network::OUTPUT;
        let y = q.scale() * (got as i32 - q.zero_point()) as f32;
        assert!(
            (y - x.sin()).abs() < 0.25,
            "x = {x}: {y} against {}",
            x.sin()
        );
        count += 1;
    }
    assert_eq!(count, 1000);
    // The outputs follow a sine: many distinct values, not a constant.
    assert!(distinct.len() > 100, "{}", distinct.len());
    // Input 1, two hidden layers of 16, output 1: every activation, in bytes.
    assert_eq!(network::ACTIVATION_BYTES, 34);
}

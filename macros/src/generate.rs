//! From a checked `shaped_tflite::Model` and its arena plan to Rust tokens.

use std::fmt::Write as _;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use shaped_tflite::{Activation, DType, Model, Op, Operator, Plan, Quantization};

/// The model's code: the struct, its constants, `predict` and `predict_into`. `file` is the
/// path as the user wrote it (errors name it).
pub fn model(bytes: &[u8], file: &str, name: &Ident) -> Result<TokenStream, String> {
    let model = Model::read(bytes, file).map_err(|e| e.to_string())?;
    let plan = Plan::new(&model).map_err(|e| e.to_string())?;
    let g = Gen {
        model: &model,
        plan: &plan,
        bytes,
    };
    let (input, output) = match (&model.inputs[..], &model.outputs[..]) {
        ([i], [o]) => (*i, *o),
        _ => {
            return Err(format!(
                "{file}: the generator takes models of one input and one output"
            ))
        }
    };
    let q_in = g.io_quant(input, "input")?;
    let q_out = g.io_quant(output, "output")?;
    let in_shape = shape_type(&model.tensors[input].shape);
    let out_shape = shape_type(&model.tensors[output].shape);

    let mut body = TokenStream::new();
    for op in &model.operators {
        body.extend(g.operator(op)?);
    }
    let arena = Literal::usize_unsuffixed(plan.arena_size);
    let docs = g.docs().into_iter().map(|line| quote!(#[doc = #line]));
    Ok(quote! {
        #(#docs)*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        __shaped_vis struct #name;

        impl #name {
            /// Bytes of the arena `predict_into` keeps the intermediate tensors in.
            pub const ARENA_BYTES: usize = #arena;
            /// The input's quantization: `x` is stored as `round(x / scale) + zero_point`.
            pub const INPUT: ::shaped::quant::Quant<i8> = #q_in;
            /// The output's quantization.
            pub const OUTPUT: ::shaped::quant::Quant<i8> = #q_out;

            /// The model on `input` (quantized by [`Self::INPUT`]), as TFLM computes it; the
            /// arena and the output on the stack.
            pub fn predict(
                input: &::shaped::Tensor<i8, #in_shape>,
            ) -> ::shaped::Tensor<i8, #out_shape> {
                let mut arena = [0u8; Self::ARENA_BYTES];
                let mut out = ::shaped::Tensor::<i8, #out_shape>::zeros();
                Self::predict_into(input, &mut out, &mut arena);
                out
            }

            /// [`Self::predict`] into `out`, the intermediate tensors in `arena` (whose
            /// contents before and after mean nothing): no allocation, and the memory an
            /// inference takes is the caller's to place.
            pub fn predict_into(
                input: &::shaped::Tensor<i8, #in_shape>,
                out: &mut ::shaped::Tensor<i8, #out_shape>,
                arena: &mut [u8; Self::ARENA_BYTES],
            ) {
                // Every check these calls make (view lengths, each layer's input parameters)
                // compares constants the generator made consistent, and folds away.
                #[inline(always)]
                fn ok<T>(r: ::core::result::Result<T, ::shaped::Error>) -> T {
                    match r {
                        ::core::result::Result::Ok(v) => v,
                        ::core::result::Result::Err(_) => {
                            ::core::unreachable!("the generated model's shapes and parameters agree")
                        }
                    }
                }
                let _ = (&input, &arena);
                #body
            }
        }
    })
}

struct Gen<'a> {
    model: &'a Model,
    plan: &'a Plan,
    bytes: &'a [u8],
}

/// Where a tensor an operator reads or writes lives.
enum Home {
    /// The caller's input tensor.
    Input,
    /// The caller's output tensor.
    Output,
    /// Bytes `offset..offset + size` of the arena.
    Arena(usize, usize),
}

impl Gen<'_> {
    fn op_error(&self, op: &Operator, message: &str) -> String {
        format!(
            "{}: operator {} ({}): {message}",
            self.model.file,
            op.index,
            op.op.name()
        )
    }

    fn io_quant(&self, t: usize, what: &str) -> Result<TokenStream, String> {
        let tensor = &self.model.tensors[t];
        match (&tensor.dtype, &tensor.quantization) {
            (DType::Int8, Some(q)) if !q.is_per_channel() => Ok(quant(q)),
            _ => Err(format!(
                "{}: the model's {what} is {}: the generator takes int8 inputs and outputs \
                 quantized per tensor",
                self.model.file,
                tensor.dtype.name()
            )),
        }
    }

    fn home(&self, t: usize) -> Home {
        if self.model.inputs.contains(&t) {
            Home::Input
        } else if self.model.outputs.contains(&t) {
            Home::Output
        } else {
            let p = self
                .plan
                .placement(t)
                .expect("the plan places every intermediate tensor");
            Home::Arena(p.offset, p.size)
        }
    }

    /// The struct's documentation: the operators with their shapes, then the arena plan.
    fn docs(&self) -> Vec<String> {
        let m = self.model;
        let shape = |t: usize| format!("{:?}", m.tensors[t].shape);
        let mut lines = vec![
            format!(
                " The model of `{}`, generated by `shaped::include_model!`.",
                m.file
            ),
            String::new(),
            format!(" Operators ({}):", m.operators.len()),
            String::new(),
        ];
        for op in &m.operators {
            let mut line = format!(" {}. `{}`", op.index, op.op.name());
            let ins: Vec<String> = op
                .inputs
                .iter()
                .map(|i| match i {
                    Some(t) if m.tensors[*t].is_constant() => format!("{} const", shape(*t)),
                    Some(t) => shape(*t),
                    None => "none".to_owned(),
                })
                .collect();
            let outs: Vec<String> = op.outputs.iter().map(|&t| shape(t)).collect();
            let _ = write!(line, " ({}) -> {}", ins.join(", "), outs.join(", "));
            if let Op::FullyConnected(fc) = &op.op {
                let _ = write!(line, ", {}", fc.activation.name());
            }
            lines.push(line);
        }
        lines.push(String::new());
        lines.push(" Arena plan:".to_owned());
        lines.push(String::new());
        lines.push(" ```text".to_owned());
        for l in self.plan.report(m).to_string().lines() {
            lines.push(format!(" {l}"));
        }
        lines.push(" ```".to_owned());
        lines
    }

    fn operator(&self, op: &Operator) -> Result<TokenStream, String> {
        match &op.op {
            Op::FullyConnected(fc) => self.fully_connected(op, fc.activation),
            _ => Err(self.op_error(op, "the model generator does not support this operator yet")),
        }
    }

    fn fully_connected(
        &self,
        op: &Operator,
        activation: Activation,
    ) -> Result<TokenStream, String> {
        let m = self.model;
        let (Some(x), Some(w), Some(&y)) = (op.input(0), op.input(1), op.outputs.first()) else {
            return Err(self.op_error(op, "expected an input, weights and an output"));
        };
        let (xt, wt, yt) = (&m.tensors[x], &m.tensors[w], &m.tensors[y]);
        if [xt.dtype, wt.dtype, yt.dtype] != [DType::Int8; 3] {
            return Err(self.op_error(op, "the generator takes int8 FULLY_CONNECTED only"));
        }
        let (units, depth) = (wt.shape[0], wt.shape[1]);
        let rows = xt.element_count() / depth.max(1);
        let i = op.index;
        let (w_name, b_name, s_name, z_name, l_name) = (
            format_ident!("W{i}"),
            format_ident!("B{i}"),
            format_ident!("S{i}"),
            format_ident!("Z{i}"),
            format_ident!("L{i}"),
        );
        let (u, d) = (
            Literal::usize_unsuffixed(units),
            Literal::usize_unsuffixed(depth),
        );
        let weights = wt
            .bytes(self.bytes)
            .ok_or_else(|| self.op_error(op, "the weights' bytes are missing"))?;
        let weights = Literal::byte_string(weights);
        let q_x = quant(
            xt.quantization
                .as_ref()
                .expect("int8 tensors are quantized"),
        );
        let q_y = quant(
            yt.quantization
                .as_ref()
                .expect("int8 tensors are quantized"),
        );
        let wq = wt
            .quantization
            .as_ref()
            .expect("int8 tensors are quantized");
        let act = activation_tokens(activation);
        let context = Literal::string(&format!(
            "{}: operator {i} (FULLY_CONNECTED): parameters shaped cannot prepare",
            m.file
        ));

        let mut items = quote! {
            // The weights `[units, depth]` in place: bytes reinterpreted at compile time.
            static #w_name: [[i8; #d]; #u] = ::shaped::__model::must_cast(*#weights);
        };
        let bias = match op.input(2) {
            Some(b) => {
                let bt = &m.tensors[b];
                let raw = bt
                    .bytes(self.bytes)
                    .ok_or_else(|| self.op_error(op, "the bias's bytes are missing"))?;
                let values = raw
                    .chunks_exact(4)
                    .map(|c| Literal::i32_unsuffixed(i32::from_le_bytes([c[0], c[1], c[2], c[3]])));
                items.extend(quote!(static #b_name: [i32; #u] = [#(#values),*];));
                quote!(::core::option::Option::Some(&#b_name))
            }
            None => quote!(::core::option::Option::None),
        };
        let layer = if wq.is_per_channel() {
            let scales = wq.scales.iter().map(|&s| f32_tokens(s));
            let zeros = wq
                .zero_points
                .iter()
                .map(|&z| Literal::i32_unsuffixed(z as i32));
            items.extend(quote! {
                static #s_name: [f32; #u] = [#(#scales),*];
                static #z_name: [i32; #u] = [#(#zeros),*];
            });
            quote! {
                const #l_name: ::shaped::layer::QDensePerChannel<'static, i8, #d, #u> =
                    ::shaped::layer::QDensePerChannel::new(
                        match ::shaped::quant::QMatMulPerChannel::new(
                            #q_x,
                            ::shaped::quant::PerAxis::new_const(&#s_name, &#z_name),
                            #q_y,
                            #act,
                            ::shaped::quant::Rounding::Double,
                        ) {
                            ::core::result::Result::Ok(op) => op,
                            ::core::result::Result::Err(_) => ::core::panic!(#context),
                        },
                        &#w_name,
                        #bias,
                    );
            }
        } else {
            let q_w = quant(wq);
            quote! {
                const #l_name: ::shaped::layer::QDense<'static, i8, #d, #u> =
                    ::shaped::layer::QDense::new(
                        match ::shaped::quant::QMatMul::new(
                            #q_x,
                            #q_w,
                            #q_y,
                            #act,
                            ::shaped::quant::Rounding::Double,
                        ) {
                            ::core::result::Result::Ok(op) => op,
                            ::core::result::Result::Err(_) => ::core::panic!(#context),
                        },
                        &#w_name,
                        #bias,
                    );
            }
        };
        items.extend(layer);

        // TFLM's FULLY_CONNECTED without keep_num_dims reads its input as rows of `depth`
        // (a `[1, 1, 1, C]` input included): both sides are viewed as `[rows, _]`.
        let x_shape = shape_type(&[rows, depth]);
        let y_shape = shape_type(&[rows, units]);
        let views = self.views(op, x, y, &x_shape, &y_shape)?;
        Ok(quote! {
            {
                #items
                #views
                ok(#l_name.forward_into(&x.quantized(#q_x), &mut y));
            }
        })
    }

    /// `let x` (a view of tensor `x`) and `let mut y` (a writable view of tensor `y`), from
    /// the caller's tensors or the arena.
    fn views(
        &self,
        op: &Operator,
        x: usize,
        y: usize,
        x_shape: &TokenStream,
        y_shape: &TokenStream,
    ) -> Result<TokenStream, String> {
        let lit = Literal::usize_unsuffixed;
        let view_i8 = |s: TokenStream| quote!(ok(::shaped::TensorView::<i8, #x_shape>::new(#s)));
        let view_u8 =
            |s: TokenStream| quote!(ok(::shaped::TensorView::<i8, #x_shape>::from_bytes(#s)));
        let out_i8 = |s: TokenStream| quote!(ok(::shaped::TensorViewMut::<i8, #y_shape>::new(#s)));
        let out_u8 = |s: TokenStream| quote!(ok(::shaped::TensorViewMut::<i8, #y_shape>::from_bytes_mut(#s)));
        Ok(match (self.home(x), self.home(y)) {
            (Home::Arena(xo, xs), Home::Arena(yo, ys)) => {
                // The plan never lets an operator's output share bytes with its input; split
                // the arena between them so that both borrows are plain slices.
                let (x_first, split) = if xo + xs <= yo {
                    (true, yo)
                } else if yo + ys <= xo {
                    (false, xo)
                } else {
                    return Err(self.op_error(op, "the arena plan overlaps input and output"));
                };
                let split = lit(split);
                let (xv, yv) = if x_first {
                    let (a, b, n) = (lit(xo), lit(xo + xs), lit(ys));
                    (view_u8(quote!(&lo[#a..#b])), out_u8(quote!(&mut hi[..#n])))
                } else {
                    let (a, b, n) = (lit(yo), lit(yo + ys), lit(xs));
                    (view_u8(quote!(&hi[..#n])), out_u8(quote!(&mut lo[#a..#b])))
                };
                quote! {
                    let (lo, hi) = arena.split_at_mut(#split);
                    let x = #xv;
                    let mut y = #yv;
                }
            }
            (xh, yh) => {
                let xv = match xh {
                    Home::Input => view_i8(quote!(input.as_slice())),
                    Home::Output => view_i8(quote!(out.as_slice())),
                    Home::Arena(o, s) => {
                        let (a, b) = (lit(o), lit(o + s));
                        view_u8(quote!(&arena[#a..#b]))
                    }
                };
                let yv = match yh {
                    Home::Output => out_i8(quote!(out.as_mut_slice())),
                    Home::Arena(o, s) => {
                        let (a, b) = (lit(o), lit(o + s));
                        out_u8(quote!(&mut arena[#a..#b]))
                    }
                    Home::Input => {
                        return Err(self.op_error(op, "an operator writes the model's input"));
                    }
                };
                quote! {
                    let x = #xv;
                    let mut y = #yv;
                }
            }
        })
    }
}

/// `::shaped::Shape![d0, d1, ...]`.
fn shape_type(dims: &[usize]) -> TokenStream {
    let dims = dims.iter().map(|&d| Literal::usize_unsuffixed(d));
    quote!(::shaped::Shape![#(#dims),*])
}

/// An f32 exactly, as its bits.
fn f32_tokens(x: f32) -> TokenStream {
    let bits: TokenStream = format!("0x{:08x}", x.to_bits())
        .parse()
        .expect("a hex literal");
    quote!(f32::from_bits(#bits))
}

/// A per-tensor quantization as a `Quant<i8>` constant expression.
fn quant(q: &Quantization) -> TokenStream {
    let scale = f32_tokens(q.scales[0]);
    let zero = Literal::i32_unsuffixed(q.zero_points[0] as i32);
    quote!(::shaped::quant::Quant::<i8>::new_const(#scale, #zero))
}

fn activation_tokens(a: Activation) -> TokenStream {
    let variant = Ident::new(
        match a {
            Activation::None => "None",
            Activation::Relu => "Relu",
            Activation::ReluN1To1 => "ReluN1To1",
            Activation::Relu6 => "Relu6",
        },
        Span::call_site(),
    );
    quote!(::shaped::quant::Activation::#variant)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> Vec<u8> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        std::fs::read(root.join("tests/models").join(name)).unwrap()
    }

    #[test]
    fn an_operator_not_generated_yet_is_named_in_the_error() {
        let ident = Ident::new("Speech", Span::call_site());
        let err = model(&read("speech.tflite"), "tests/models/speech.tflite", &ident).unwrap_err();
        assert_eq!(
            err,
            "tests/models/speech.tflite: operator 0 (CONV_2D): the model generator does not \
             support this operator yet"
        );
    }

    #[test]
    fn a_float_model_is_refused_at_its_input() {
        let ident = Ident::new("Speech", Span::call_site());
        let err = model(&read("speech_f32.tflite"), "speech_f32.tflite", &ident).unwrap_err();
        assert!(
            err.starts_with("speech_f32.tflite: the model's input is float32"),
            "{err}"
        );
    }

    #[test]
    fn anomaly_s_layers_are_constants_over_statics() {
        let ident = Ident::new("Anomaly", Span::call_site());
        let code = model(&read("anomaly.tflite"), "anomaly.tflite", &ident)
            .unwrap()
            .to_string();
        // Nine per-channel layers with a bias, the last without.
        assert_eq!(code.matches("QDensePerChannel :: new (").count(), 10);
        assert_eq!(code.matches("Option :: Some (& B").count(), 9);
        assert!(code.contains("pub const ARENA_BYTES : usize = 264 ;"));
        assert!(code.contains("static W9 : [[i8 ; 128] ; 640] ="));
    }
}

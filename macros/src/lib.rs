//! The second half of shaped's `.tflite` importer: [`include_model!`] reads a model with
//! `shaped-tflite` at build time and expands to a typed Rust model calling shaped's public
//! typed `_into` operations, its weights in `static`s, its operations prepared as `const`s and
//! its intermediate tensors in one arena planned by `shaped_tflite::Plan`. Use it as `shaped::include_model!`
//! (feature `model` of `shaped`), which the generated code's paths (`::shaped::...`) assume.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::{Delimiter, Literal, Span, TokenStream as TokenStream2, TokenTree};
use quote::quote;

/// Turns a `.tflite` file into a unit struct with a typed, allocation-free `predict`.
///
/// ```ignore
/// shaped::include_model!(pub Anomaly, "tests/models/anomaly.tflite");
/// // x: Tensor<i8, Shape![1, 640]>; y: Quantized<Tensor<i8, Shape![1, 640]>, i8>
/// let y = Anomaly::predict(&x);
/// let real = y.dequantize(); // Tensor<f32, Shape![1, 640]>
/// ```
///
/// The path is relative to the `CARGO_MANIFEST_DIR` of the crate invoking the macro. The
/// struct has `ARENA_BYTES`, `INPUT` and `OUTPUT` (the model's input and output quantization,
/// for int8 ones), `predict` and `predict_into` (the input and output the caller's, the
/// intermediate tensors in a `shaped::model::Arena<{ ARENA_BYTES }>`), and `run`, `input_mut`
/// and `output` (everything in one `Arena<{ ARENA_WITH_IO_BYTES }>`); its documentation lists
/// the operators and the arena plan. A model the generator cannot turn into code is a
/// `compile_error!` naming the file, and the operator when one is at fault.
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    match expand(input.into()) {
        Ok(tokens) => tokens.into(),
        Err((message, span)) => {
            let message = Literal::string(&message);
            quote::quote_spanned!(span => ::core::compile_error!(#message);).into()
        }
    }
}

/// An error's message and where to point it.
type Failure = (String, Span);

fn expand(input: TokenStream2) -> Result<TokenStream2, Failure> {
    let (vis, name, path, path_span) = parse(input)?;
    let dir = std::env::var("CARGO_MANIFEST_DIR")
        .map_err(|_| ("CARGO_MANIFEST_DIR is not set".to_owned(), path_span))?;
    let full = std::path::Path::new(&dir).join(&path);
    let bytes = std::fs::read(&full)
        .map_err(|e| (format!("{path}: cannot read the model: {e}"), path_span))?;
    let code = shaped_tflite::codegen::model(&bytes, &path, &name).map_err(|m| (m, path_span))?;
    // Cargo rebuilds the invoking crate when the model changes: it tracks `include_bytes!`.
    let full = Literal::string(&full.to_string_lossy());
    Ok(quote! {
        #code
        const _: &[u8] = ::core::include_bytes!(#full);
    }
    .into_iter()
    .map(|t| vis_into(t, &vis))
    .collect())
}

/// Replaces the placeholder ident `__shaped_vis` with the caller's visibility tokens.
fn vis_into(tree: TokenTree, vis: &TokenStream2) -> TokenStream2 {
    match tree {
        TokenTree::Ident(i) if i == "__shaped_vis" => vis.clone(),
        TokenTree::Group(g) => {
            let inner: TokenStream2 = g.stream().into_iter().map(|t| vis_into(t, vis)).collect();
            let mut group = proc_macro2::Group::new(g.delimiter(), inner);
            group.set_span(g.span());
            TokenTree::Group(group).into()
        }
        other => other.into(),
    }
}

/// `<visibility> Name, "path"` (a trailing comma allowed).
fn parse(input: TokenStream2) -> Result<(TokenStream2, proc_macro2::Ident, String, Span), Failure> {
    let usage = "expected `include_model!(<visibility> Name, \"path/to/model.tflite\")`";
    let trees: Vec<TokenTree> = input.into_iter().collect();
    let comma = trees
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .ok_or_else(|| (usage.to_owned(), Span::call_site()))?;
    let (name, vis) = match trees[..comma].split_last() {
        Some((TokenTree::Ident(name), vis)) => (name.clone(), vis.iter().cloned().collect()),
        _ => return Err((usage.to_owned(), Span::call_site())),
    };
    let rest = &trees[comma + 1..];
    let literal = match rest {
        [TokenTree::Literal(l)] | [TokenTree::Literal(l), TokenTree::Punct(_)] => l.clone(),
        // A literal passed through a `macro_rules!` arrives wrapped in an invisible group.
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::None => {
            match g.stream().into_iter().next() {
                Some(TokenTree::Literal(l)) => l,
                _ => return Err((usage.to_owned(), g.span())),
            }
        }
        _ => return Err((usage.to_owned(), Span::call_site())),
    };
    let text = literal.to_string();
    let path = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|t| !t.contains('\\'))
        .ok_or_else(|| {
            let m = "the model's path must be a plain string literal (no escapes)";
            (m.to_owned(), literal.span())
        })?;
    Ok((vis, name, path.to_owned(), literal.span()))
}

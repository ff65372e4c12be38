//! The `#[asking]` attribute, re-exported as `interlude_server::asking`: see its documentation
//! there, where the examples are compiled against the toolkit. Nothing else.
//!
//! What it is for: rmcp converts a tool's `Err` into a JSON-RPC error or an `isError` result, and
//! refuses an `input_required` result coming out of that branch. An asking handler, though, leaves
//! through `?` exactly when a 2026-07-28 question must go out. The attribute lets such a handler
//! keep the plain shape `async fn tool(..) -> ToolResult { ..?; Ok(..) }` by running its body to
//! completion and handing the `Result` to `interlude_server::respond`, which puts the question in
//! rmcp's `Ok` branch and maps every other error to JSON-RPC in one place.
//!
//! What it deliberately does not do: look at anything but `#[tool]` fns declared to return
//! `ToolResult` (every other item passes through untouched), generate tool metadata (rmcp's
//! `#[tool]` and `#[tool_router]` still do that), or decide how errors map (the toolkit does).

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{ToTokens, quote};
use syn::{Ident, ImplItem, ImplItemFn, ItemImpl, ReturnType, Type, parse_quote};

/// How it works: each `#[tool]` fn of the impl block declared `-> ToolResult` (any path ending
/// in `ToolResult`, without generic arguments) keeps its body as written, run inside an async
/// block (a closure for a sync fn) so that `?` and `return` stay local to it, and returns what
/// `interlude_server::respond` makes of the result: `Result<CallToolResponse, ErrorData>`, which
/// rmcp takes as is. Other fns, and tools returning anything else, are left untouched. The
/// attribute works above or below `#[tool_router]`, which only reads the fns.
///
/// The expansion names `::interlude_server` and `::rmcp`, so both must be dependencies of the
/// crate under those names (rmcp's own macros need `rmcp` already). A `ToolResult` gives the tool
/// no output schema: set `output_schema` on `#[tool]` for structured output.
///
/// Its examples, compiled against the toolkit (which this crate cannot depend on), are on
/// `interlude_server::asking`, the path to use it by.
#[proc_macro_attribute]
pub fn asking(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    if let Some(first) = proc_macro2::TokenStream::from(attr).into_iter().next() {
        return error(first.span(), "#[asking] takes no arguments", item);
    }
    let mut block = match syn::parse2::<ItemImpl>(item.clone()) {
        Ok(block) => block,
        Err(e) => {
            return error(
                e.span(),
                "#[asking] goes on the impl block that holds the #[tool] fns (next to \
                 #[tool_router])",
                item,
            );
        }
    };
    for item in &mut block.items {
        if let ImplItem::Fn(f) = item
            && is_tool(f)
            && returns_tool_result(&f.sig.output)
        {
            rewrite(f);
        }
    }
    block.into_token_stream().into()
}

/// Whether rmcp's `#[tool]` (under any path) marks this fn, the way `#[tool_router]` decides.
fn is_tool(f: &ImplItemFn) -> bool {
    f.attrs.iter().any(|attr| {
        attr.path()
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "tool")
    })
}

fn returns_tool_result(output: &ReturnType) -> bool {
    let ReturnType::Type(_, ty) = output else {
        return false;
    };
    let mut ty = &**ty;
    while let Type::Group(group) = ty {
        ty = &group.elem;
    }
    match ty {
        Type::Path(path) => {
            path.qself.is_none()
                && path.path.segments.last().is_some_and(|segment| {
                    segment.ident == "ToolResult" && segment.arguments.is_none()
                })
        }
        _ => false,
    }
}

/// Runs the body unchanged (an async block keeps `?` and `return` local to it) and answers with
/// what `respond` makes of its result. The result keeps the type the fn was declared with, so the
/// declaration still means something (and its import is still used).
fn rewrite(f: &mut ImplItemFn) {
    let ReturnType::Type(_, declared) = &f.sig.output else {
        return;
    };
    let body = &f.block;
    let result = Ident::new("result", Span::mixed_site());
    f.block = if f.sig.asyncness.is_some() {
        parse_quote!({
            let #result: #declared = async move #body.await;
            ::interlude_server::respond(#result)
        })
    } else {
        parse_quote!({
            let #result: #declared = (move || -> #declared #body)();
            ::interlude_server::respond(#result)
        })
    };
    f.sig.output = parse_quote!(
        -> ::core::result::Result<::rmcp::model::CallToolResponse, ::rmcp::ErrorData>
    );
}

/// A compile error at `span`, followed by the item unchanged so that no second error hides it.
fn error(span: Span, message: &str, item: proc_macro2::TokenStream) -> TokenStream {
    let message = syn::Error::new(span, message).to_compile_error();
    quote!(#message #item).into()
}

//! The `#[asking]` attribute, re-exported as `interlude_server::asking`, and the `Form` derive,
//! re-exported as `interlude_server::Form`: see their documentation there, where the examples
//! are compiled against the toolkit. Nothing else.
//!
//! What it is for: rmcp converts a tool's `Err` into a JSON-RPC error or an `isError` result, and
//! refuses an `input_required` result coming out of that branch. An asking handler, though, leaves
//! through `?` exactly when a 2026-07-28 question must go out. The attribute lets such a handler
//! keep the plain shape `async fn tool(..) -> ToolResult { ..?; Ok(..) }` by running its body to
//! completion and handing the `Result` to `interlude_server::respond`, which puts the question in
//! rmcp's `Ok` branch and maps every other error to JSON-RPC in one place.
//!
//! It also checks that the block's type implements `AskServer` and rmcp's `ServerHandler`, which
//! a tool taking `Ask` needs, so that forgetting either is an error naming it.
//!
//! What it deliberately does not do: look at anything but `#[tool]` fns declared to return
//! `ToolResult` (every other item passes through untouched), generate tool metadata (rmcp's
//! `#[tool]` and `#[tool_router]` still do that), or decide how errors map (the toolkit does).

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
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
    let mut asks = false;
    for item in &mut block.items {
        if let ImplItem::Fn(f) = item
            && is_tool(f)
        {
            asks |= takes_ask(f);
            if returns_tool_result(&f.sig.output) {
                rewrite(f);
                asks = true;
            }
        }
    }
    let needs = (asks && block.generics.params.is_empty()).then(|| needs_ask_server(&block));
    quote!(#block #needs).into()
}

/// Whether a parameter of the fn is typed `Ask` (any path ending in `Ask`).
fn takes_ask(f: &ImplItemFn) -> bool {
    f.sig.inputs.iter().any(|input| match input {
        syn::FnArg::Typed(typed) => match &*typed.ty {
            Type::Path(path) => path
                .path
                .segments
                .last()
                .is_some_and(|segment| segment.ident == "Ask"),
            _ => false,
        },
        syn::FnArg::Receiver(_) => false,
    })
}

/// A check, at the impl block's type, that it implements `AskServer` and `ServerHandler`:
/// without it, a missing impl is only rmcp's "`IntoToolRoute<Server, _>` is not satisfied",
/// on each tool, naming neither. (`AskServer` says what to write.)
fn needs_ask_server(block: &ItemImpl) -> proc_macro2::TokenStream {
    let ty = &block.self_ty;
    let span = syn::spanned::Spanned::span(ty);
    let ask_server = Ident::new("__interlude_asking_needs_ask_server", span);
    let handler = Ident::new("__interlude_asking_needs_server_handler", span);
    quote::quote_spanned! {span=>
        const _: fn() = || {
            fn #ask_server<T: ::interlude_server::AskServer>() {}
            fn #handler<T: ::rmcp::ServerHandler>() {}
            #ask_server::<#ty>();
            #handler::<#ty>();
        };
    }
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

/// How it works: on a struct with named fields, a check per field that its type implements
/// `interlude_server::form::FormField` (a `#[serde(flatten)]` field: that it derives `Form`
/// itself), spanned at the field's type so that the error points at the field; and the
/// `FormStruct` marker. On an enum whose variants are all units: `FormField` and `FormChoice`.
/// Anything else is an error naming what does not fit. It generates no schema (schemars
/// does) and changes nothing at run time.
///
/// Its examples are on `interlude_server::Form`, the path to use it by.
#[proc_macro_derive(Form)]
pub fn derive_form(item: TokenStream) -> TokenStream {
    let input = match syn::parse::<syn::DeriveInput>(item) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error().into(),
    };
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return syn::Error::new_spanned(&input.generics, "#[derive(Form)] takes no generic types")
            .to_compile_error()
            .into();
    }
    match &input.data {
        syn::Data::Struct(data) => {
            let syn::Fields::Named(fields) = &data.fields else {
                return syn::Error::new_spanned(
                    name,
                    "#[derive(Form)] goes on a struct with named fields (each a field of the form)",
                )
                .to_compile_error()
                .into();
            };
            let checks = fields.named.iter().map(|field| {
                let ty = &field.ty;
                let span = syn::spanned::Spanned::span(ty);
                let flattened = field.attrs.iter().any(|attr| {
                    attr.path().is_ident("serde")
                        && attr.to_token_stream_string().contains("flatten")
                });
                let bound = if flattened {
                    quote!(::interlude_server::form::FormStruct)
                } else {
                    quote!(::interlude_server::form::FormField)
                };
                quote::quote_spanned! {span=>
                    const _: fn() = || {
                        fn form_field<T: #bound>() {}
                        form_field::<#ty>();
                    };
                }
            });
            quote! {
                #(#checks)*
                impl ::interlude_server::form::FormStruct for #name {}
            }
            .into()
        }
        syn::Data::Enum(data) => {
            if let Some(variant) = data
                .variants
                .iter()
                .find(|v| !matches!(v.fields, syn::Fields::Unit))
            {
                return syn::Error::new_spanned(
                    variant,
                    format!(
                        "variant `{}` carries data: a form's choice is one of unit variants only",
                        variant.ident
                    ),
                )
                .to_compile_error()
                .into();
            }
            quote! {
                impl ::interlude_server::form::FormField for #name {}
                impl ::interlude_server::form::FormChoice for #name {}
            }
            .into()
        }
        syn::Data::Union(_) => {
            syn::Error::new_spanned(name, "#[derive(Form)] does not take unions")
                .to_compile_error()
                .into()
        }
    }
}

/// An attribute's tokens as text.
trait TokensText {
    fn to_token_stream_string(&self) -> String;
}

impl TokensText for syn::Attribute {
    fn to_token_stream_string(&self) -> String {
        quote::ToTokens::to_token_stream(self).to_string()
    }
}

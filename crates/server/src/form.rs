//! What a form's fields may be, checked when the program is compiled: the traits behind
//! [`derive(Form)`](crate::Form). A form (form-mode elicitation) is flat — strings, numbers,
//! booleans, a choice among an enum's unit variants, several such choices, each optional or
//! not — so a struct as a field (a nested object) is an error pointing at that field, where
//! without the derive it would be refused when the question is asked.
//!
//! Nothing here runs: the derive only asks the compiler whether each field's type implements
//! [`FormField`]. The schema itself still comes from schemars (`JsonSchema`), and the answer is
//! still checked against it on the server.

/// A type a form's field may have: implemented for strings, numbers, booleans, `Option` of
/// those, `Vec` of a [`FormChoice`] (several choices), and by
/// [`derive(Form)`](crate::Form) on an enum of unit variants (one choice).
///
/// ```
/// use interlude_server::form::FormField;
/// fn field<T: FormField>() {}
/// field::<String>();
/// field::<Option<u32>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a form",
    label = "not a form field: a form is flat",
    note = "a form's fields are strings, numbers, booleans, enums of unit variants \
            (`#[derive(Form)]` on the enum), `Vec`s of such enums, or `Option`s of those",
    note = "a struct here would be a nested object, which elicitation does not allow: flatten it \
            (`#[serde(flatten)]`, with `#[derive(Form)]` on it) or ask it as a form of its own"
)]
pub trait FormField {}

/// An enum of unit variants (what [`derive(Form)`](crate::Form) implements on an enum): one
/// choice of a form, or several as a `Vec`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a choice: a list field of a form is a `Vec` of an enum of unit \
               variants with `#[derive(Form)]`"
)]
pub trait FormChoice {}

/// A struct whose fields were checked by [`derive(Form)`](crate::Form): a form, or a part of
/// one flattened into another (`#[serde(flatten)]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is flattened into a form but does not derive `Form`",
    note = "add `#[derive(interlude_server::Form)]` to it, so its own fields are checked"
)]
pub trait FormStruct {}

macro_rules! form_fields {
    ($($t:ty),* $(,)?) => { $(impl FormField for $t {})* };
}

form_fields!(
    String, bool, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64,
);

impl FormField for std::borrow::Cow<'_, str> {}
impl<T: FormField> FormField for Option<T> {}
impl<T: FormChoice> FormField for Vec<T> {}
impl<T: FormChoice> FormField for std::collections::BTreeSet<T> {}

//! [`Questions`]: several questions of one call asked in one round ([`Ask::all`]).
//!
//! Only what joins them lives here: the futures of a tuple run together and their results
//! are sorted — a failure first, then a question still to ask, then the answers. Gathering the
//! questions into one `input_required` result is `round_trip.rs`'s; [`Ask::all`] sets it up
//! around the join. On `AskError` alone.
//!
//! [`Ask::all`]: crate::Ask::all

use std::future::Future;

use crate::error::AskError;

mod sealed {
    /// Only this crate's tuples are [`Questions`](super::Questions).
    #[allow(unreachable_pub)]
    pub trait Sealed {}
}

/// Questions asked together with [`Ask::all`](crate::Ask::all): a tuple of two to six
/// futures of [`Ask`](crate::Ask)'s questions ([`Ask::form`](crate::Ask::form) and its
/// variants, [`Ask::sample`](crate::Ask::sample), [`Ask::roots`](crate::Ask::roots)), or of
/// any `async` block of yours that asks some of them and returns `Result<T, AskError>`.
///
/// ```
/// # use interlude_server::{Answer, Ask, AskError, Sampling};
/// # #[derive(serde::Deserialize, schemars::JsonSchema)]
/// # struct Name { name: String }
/// # async fn tool(ask: Ask) -> Result<String, AskError> {
/// let (name, roots) = ask
///     .all((ask.key("user_name").form::<Name>("What is your name?"), ask.roots()))
///     .await?;
/// # let _ = (name, roots);
/// # Ok(String::new())
/// # }
/// ```
pub trait Questions: sealed::Sealed {
    /// What the questions give, in their order.
    type Answers;

    /// Runs the questions together and sorts their results: the first failure that is not a
    /// question to ask, else a question to ask, else the answers.
    #[doc(hidden)]
    fn join(self) -> impl Future<Output = Result<Self::Answers, AskError>> + Send;
}

/// A question's outcome once its round is over: its answer, or (`None`) still to be asked.
fn sorted<T>(
    result: Result<T, AskError>,
    asked: &mut Option<AskError>,
) -> Result<Option<T>, AskError> {
    match result {
        Ok(answer) => Ok(Some(answer)),
        Err(AskError::InputRequired(question)) => {
            asked.get_or_insert(AskError::InputRequired(question));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

macro_rules! questions {
    ($($future:ident $answer:ident $value:ident),+) => {
        impl<$($future, $answer),+> sealed::Sealed for ($($future,)+)
        where
            $($future: Future<Output = Result<$answer, AskError>> + Send, $answer: Send),+
        {
        }

        impl<$($future, $answer),+> Questions for ($($future,)+)
        where
            $($future: Future<Output = Result<$answer, AskError>> + Send, $answer: Send),+
        {
            type Answers = ($($answer,)+);

            fn join(self) -> impl Future<Output = Result<Self::Answers, AskError>> + Send {
                let ($($value,)+) = self;
                async move {
                    let ($($value,)+) = tokio::join!($($value),+);
                    let mut asked = None;
                    $(let $value = sorted($value, &mut asked)?;)+
                    if let Some(asked) = asked {
                        return Err(asked);
                    }
                    match ($($value,)+) {
                        ($(Some($value),)+) => Ok(($($value,)+)),
                        #[allow(unreachable_patterns)]
                        _ => Err(AskError::RequestState(
                            "a question of the round gave neither an answer nor a question".into(),
                        )),
                    }
                }
            }
        }
    };
}

questions!(A RA a, B RB b);
questions!(A RA a, B RB b, C RC c);
questions!(A RA a, B RB b, C RC c, D RD d);
questions!(A RA a, B RB b, C RC c, D RD d, E RE e);
questions!(A RA a, B RB b, C RC c, D RD d, E RE e, F RF f);

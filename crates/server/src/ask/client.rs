//! The questions an [`Ask`] puts to the client itself rather than to the person: a model's
//! completion ([`Ask::sample`]) and the client's roots ([`Ask::roots`]), in either era. Beside
//! `ask.rs`, which picks the transport for every question.
//!
//! What it does not do: build the sampling request or read its answer (`sampling.rs`), or
//! read the roots (`roots.rs`).

use super::*;

impl Ask {
    /// Asks the client for a model completion (`sampling/createMessage`) and returns it,
    /// checked: it names its model, its role is `assistant`, it has content — otherwise
    /// [`AskError::InvalidAnswer`] naming the field (`content`, `model`, `role`; on 2026-07-28
    /// under `inputResponses.<key>.`).
    ///
    /// - 2025 (2025-06-18, 2025-11-25): the request is pushed to the client while the call
    ///   waits (the same timeout and cancellation as a form; its `_meta` names the call). A
    ///   client that answers with error `-1` — the specification's "user rejected sampling
    ///   request" — gives [`Answer::Declined`]; a call cancelled while waiting gives
    ///   [`Answer::Cancelled`]; any other error reply is [`AskError::Service`].
    /// - 2026-07-28: the request leaves in an `input_required` result, keyed like any question
    ///   ([`Ask::key`]), its state sealed; the retry's answer comes back here. (The protocol has
    ///   no way to decline one there: a client that will not answer does not retry.)
    ///
    /// A client that did not declare `sampling` gets [`AskError::MissingCapability`] (error
    /// -32021, `requiredCapabilities: {"sampling": {}}`), in both eras; a question offering the
    /// model tools needs `sampling.tools` as well. A question with no message is refused
    /// before it leaves ([`AskError::InvalidQuestion`]).
    ///
    /// ```
    /// # use interlude_server::{Answer, Ask, AskError, Sampling};
    /// # async fn tool(ask: Ask) -> Result<String, AskError> {
    /// let question = Sampling::new(100).user("What is the capital of France?");
    /// Ok(match ask.key("capital_question").sample(question).await? {
    ///     Answer::Accepted(sampled) => sampled.text().unwrap_or_default(),
    ///     Answer::Declined | Answer::Cancelled => "no answer".into(),
    /// })
    /// # }
    /// ```
    pub fn sample(
        &self,
        question: Sampling,
    ) -> impl Future<Output = Result<Answer<Sampled>, AskError>> + '_ {
        let key = self.reserve_key();
        self.sample_keyed(key, question)
    }

    async fn sample_keyed(
        &self,
        key: Option<Result<String, AskError>>,
        question: Sampling,
    ) -> Result<Answer<Sampled>, AskError> {
        if !self.supports_sampling() {
            return Err(AskError::MissingCapability {
                capability: "sampling",
            });
        }
        if question.needs_tools() && !self.supports_sampling_tools() {
            return Err(AskError::MissingCapability {
                capability: "sampling.tools",
            });
        }
        question.check()?;
        match self.call.era {
            ProtocolEra::Push => {
                let request = question.into_request(related_to(&self.call.context.id));
                match crate::push::ask_client(&self.call, request).await? {
                    None => Ok(Answer::Cancelled),
                    Some(Err(rmcp::ServiceError::McpError(e))) if e.code.0 == USER_REJECTED => {
                        Ok(Answer::Declined)
                    }
                    Some(Err(e)) => Err(e.into()),
                    Some(Ok(result)) => {
                        read_sampled(client_result_json(result)?, "").map(Answer::Accepted)
                    }
                }
            }
            ProtocolEra::Mrtr => {
                let asked = self
                    .round_trip()?
                    .next_input(&self.call.config, key, || Ok(question.into_input_request()));
                let (key, answer) = self.through_task(asked).await?;
                read_sampled(answer, &format!("inputResponses.{key}.")).map(Answer::Accepted)
            }
        }
    }

    /// Whether the client declared that it takes tools in sampling requests (`sampling.tools`).
    fn supports_sampling_tools(&self) -> bool {
        self.call
            .client_capabilities()
            .and_then(|c| c.sampling.as_ref())
            .is_some_and(|s| s.tools.is_some())
    }

    /// Asks the client for its roots (`roots/list`): the `file://` places it lets the server
    /// work in, each checked (a URI that is a string starting with `file://`, a name that is a
    /// string if any) — otherwise [`AskError::InvalidAnswer`] naming the field
    /// (`roots[1].uri`; on 2026-07-28 under `inputResponses.<key>.`).
    ///
    /// 2025: pushed to the client while the call waits (a call cancelled meanwhile ends with
    /// [`AskError::Service`]); 2026-07-28: an `input_required` result keyed like any question
    /// ([`Ask::key`]). A client that did not declare `roots` gets
    /// [`AskError::MissingCapability`] (error -32021, `requiredCapabilities: {"roots": {}}`).
    ///
    /// ```
    /// # use interlude_server::{Ask, AskError};
    /// # async fn tool(ask: Ask) -> Result<String, AskError> {
    /// let roots = ask.key("client_roots").roots().await?;
    /// Ok(format!("{} roots", roots.len()))
    /// # }
    /// ```
    pub fn roots(&self) -> impl Future<Output = Result<Vec<Root>, AskError>> + '_ {
        let key = self.reserve_key();
        self.roots_keyed(key)
    }

    async fn roots_keyed(
        &self,
        key: Option<Result<String, AskError>>,
    ) -> Result<Vec<Root>, AskError> {
        if !self.supports_roots() {
            return Err(AskError::MissingCapability {
                capability: "roots",
            });
        }
        match self.call.era {
            ProtocolEra::Push => {
                match crate::push::ask_client(
                    &self.call,
                    roots_request(related_to(&self.call.context.id)),
                )
                .await?
                {
                    None => Err(rmcp::ServiceError::Cancelled {
                        reason: Some("the call was cancelled while listing roots".into()),
                    }
                    .into()),
                    Some(reply) => read_roots(&client_result_json(reply?)?, ""),
                }
            }
            ProtocolEra::Mrtr => {
                let asked = self
                    .round_trip()?
                    .next_input(&self.call.config, key, || Ok(roots_input_request()));
                let (key, answer) = self.through_task(asked).await?;
                read_roots(&answer, &format!("inputResponses.{key}."))
            }
        }
    }

    /// Asks several questions in one round and returns their answers in the same order: on
    /// 2026-07-28 the questions still unanswered leave together in one `input_required`
    /// result (one `inputRequests` entry each, one sealed state), so the client answers them
    /// all in a single retry; on a 2025 session they are sent to the client at once and the
    /// call waits for every answer.
    ///
    /// `questions` is a tuple of two to six question futures ([`Questions`]), made before
    /// this call and not awaited: `ask.key(…)` names each as usual (a key is taken when the
    /// question is made). A question that fails fails the whole round (the first failure in
    /// the tuple's order wins); so does a missing capability, before anything is asked. An
    /// `async` block in the tuple asks its own questions one after the other, its first
    /// unanswered one joining the round.
    ///
    /// ```
    /// # use interlude_server::{Answer, Ask, AskError, Sampling};
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name {
    ///     /// Your name
    ///     name: String,
    /// }
    ///
    /// # async fn tool(ask: Ask) -> Result<String, AskError> {
    /// let (name, greeting, roots) = ask
    ///     .all((
    ///         ask.key("user_name").form::<Name>("What is your name?"),
    ///         ask.key("greeting").sample(Sampling::new(50).user("Generate a greeting")),
    ///         ask.key("client_roots").roots(),
    ///     ))
    ///     .await?;
    /// let name = match name {
    ///     Answer::Accepted(n) => n.name,
    ///     Answer::Declined | Answer::Cancelled => "stranger".into(),
    /// };
    /// let greeting = match greeting {
    ///     Answer::Accepted(s) => s.text().unwrap_or_default(),
    ///     Answer::Declined | Answer::Cancelled => "Hello".into(),
    /// };
    /// Ok(format!("{greeting}, {name}! ({} roots)", roots.len()))
    /// # }
    /// ```
    pub async fn all<Q: Questions>(&self, questions: Q) -> Result<Q::Answers, AskError> {
        // In a task, each question is asked through the task as it comes: run together, they
        // are outstanding together.
        let gathering = self.call.era == ProtocolEra::Mrtr && self.task.is_none();
        if gathering {
            self.round_trip()?.start_gathering();
        }
        let joined = questions.join().await;
        let asked = if gathering {
            self.round_trip()?.finish_gathering(&self.call.config)
        } else {
            None
        };
        match (joined, asked) {
            (Err(AskError::InputRequired(_)), Some(asked)) | (Ok(_), Some(asked)) => Err(asked),
            (Err(AskError::InputRequired(question)), None) => {
                Err(AskError::InputRequired(question))
            }
            (Err(e), _) => Err(e),
            (Ok(answers), None) => Ok(answers),
        }
    }
}

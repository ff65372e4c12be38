//! What a server offers besides tools, for a person to browse: its resources and resource
//! templates (read one), and its prompts (get one with its arguments). Each list asks only a
//! server that declared the capability (one that did not has none to list), and keeps at most
//! [`MAX_LISTED`] entries.
//!
//! Subscriptions to a resource's updates are `subscribe.rs`'s. A 2026-07-28 `prompts/get` or
//! `resources/read` that answers `input_required` has its rounds driven as a tool call's are:
//! the person answers each input request (tied to no call), and the request is sent again with
//! the answers and the echoed `requestState`.

use rmcp::model::{
    CompleteRequestParams, CompletionInfo, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, JsonObject, Prompt, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceTemplate, ServerCapabilities,
};

use super::Connection;
use crate::hub::config::HostError;

/// The most entries of one list kept (resources, templates or prompts).
pub const MAX_LISTED: usize = 1000;

impl Connection {
    /// What the server declared it offers, as its handshake said.
    fn capabilities(&self) -> Option<ServerCapabilities> {
        self.inner.peer.peer_info().map(|i| i.capabilities.clone())
    }

    /// The server's resources (at most [`MAX_LISTED`]); none when it declares no resources.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// for resource in conn.list_resources().await? {
    ///     println!("{} ({})", resource.name, resource.uri);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_resources(&self) -> Result<Vec<Resource>, HostError> {
        if self.capabilities().is_none_or(|c| c.resources.is_none()) {
            return Ok(Vec::new());
        }
        let mut resources = self
            .inner
            .peer
            .list_all_resources()
            .await
            .map_err(|e| self.service_error("listing its resources".into(), e))?;
        resources.truncate(MAX_LISTED);
        Ok(resources)
    }

    /// The server's resource templates (at most [`MAX_LISTED`]); none when it declares no
    /// resources.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, HostError> {
        if self.capabilities().is_none_or(|c| c.resources.is_none()) {
            return Ok(Vec::new());
        }
        let mut templates = self
            .inner
            .peer
            .list_all_resource_templates()
            .await
            .map_err(|e| self.service_error("listing its resource templates".into(), e))?;
        templates.truncate(MAX_LISTED);
        Ok(templates)
    }

    /// Reads the resource at `uri` (`resources/read`).
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// let read = conn.read_resource("file:///notes/today.md").await?;
    /// println!("{} item(s)", read.contents.len());
    /// # Ok(()) }
    /// ```
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, HostError> {
        let mut params = ReadResourceRequestParams::new(uri);
        let mut state_only_rounds = 0;
        for _ in 0..=self.inner.shared.config.max_rounds {
            match self
                .inner
                .peer
                .read_resource_once(params.clone())
                .await
                .map_err(|e| self.service_error(format!("reading `{uri}`"), e))?
            {
                ReadResourceResponse::Complete(read) => return Ok(read),
                ReadResourceResponse::InputRequired(ir) => {
                    let next = self.next_round(None, ir, &mut state_only_rounds).await?;
                    params.input_responses = next.input_responses;
                    params.request_state = next.request_state;
                }
                // Whatever rmcp's non-exhaustive enum may gain.
                _ => return Err(self.unexpected(&format!("reading `{uri}`"))),
            }
        }
        Err(self.too_many_rounds())
    }

    /// An answer of a kind the host does not know.
    fn unexpected(&self, what: &str) -> HostError {
        HostError::Unexpected {
            server: self.inner.info.name.clone(),
            what: format!("an answer of an unknown kind to {what}"),
        }
    }

    /// A read or a prompt that kept asking.
    fn too_many_rounds(&self) -> HostError {
        HostError::TooManyRounds {
            server: self.inner.info.name.clone(),
            rounds: self.inner.shared.config.max_rounds,
        }
    }

    /// The server's prompts (at most [`MAX_LISTED`]); none when it declares no prompts.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, HostError> {
        if self.capabilities().is_none_or(|c| c.prompts.is_none()) {
            return Ok(Vec::new());
        }
        let mut prompts = self
            .inner
            .peer
            .list_all_prompts()
            .await
            .map_err(|e| self.service_error("listing its prompts".into(), e))?;
        prompts.truncate(MAX_LISTED);
        Ok(prompts)
    }

    /// Gets prompt `name` with `arguments` (`prompts/get`): the messages it makes.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// let args = serde_json::json!({"city": "Lisbon"});
    /// let prompt = conn.get_prompt("plan_trip", args.as_object().cloned()).await?;
    /// println!("{} message(s)", prompt.messages.len());
    /// # Ok(()) }
    /// ```
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<GetPromptResult, HostError> {
        let mut params = GetPromptRequestParams::new(name);
        params.arguments = arguments;
        let mut state_only_rounds = 0;
        for _ in 0..=self.inner.shared.config.max_rounds {
            match self
                .inner
                .peer
                .get_prompt_once(params.clone())
                .await
                .map_err(|e| self.service_error(format!("getting the prompt `{name}`"), e))?
            {
                GetPromptResponse::Complete(prompt) => return Ok(prompt),
                GetPromptResponse::InputRequired(ir) => {
                    let next = self.next_round(None, ir, &mut state_only_rounds).await?;
                    params.input_responses = next.input_responses;
                    params.request_state = next.request_state;
                }
                // Whatever rmcp's non-exhaustive enum may gain.
                _ => return Err(self.unexpected(&format!("the prompt `{name}`"))),
            }
        }
        Err(self.too_many_rounds())
    }

    /// What the server suggests for an argument of a prompt or a variable of a resource
    /// template as far as it is typed (`completion/complete`); nothing when it declares no
    /// completions.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// use rmcp::model::{ArgumentInfo, CompleteRequestParams, Reference};
    /// let params = CompleteRequestParams::new(
    ///     Reference::for_prompt("plan_trip"),
    ///     ArgumentInfo::new("city", "Lis"),
    /// );
    /// for value in conn.complete(params).await?.values {
    ///     println!("{value}");
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn complete(
        &self,
        params: CompleteRequestParams,
    ) -> Result<CompletionInfo, HostError> {
        if self.capabilities().is_none_or(|c| c.completions.is_none()) {
            return Ok(CompletionInfo::default());
        }
        let argument = params.argument.name.clone();
        self.inner
            .peer
            .complete(params)
            .await
            .map(|r| r.completion)
            .map_err(|e| self.service_error(format!("completing `{argument}`"), e))
    }
}

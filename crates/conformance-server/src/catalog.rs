//! The server's prompts, resources and completions: plain data, and the one prompt that asks
//! (through `Ask::for_prompt`, answered by the caller with `respond_prompt`).

use interlude_server::{Answer, Ask, PromptResult};
use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, GetPromptRequestParams,
    GetPromptResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Reference,
    Resource, ResourceContents, ResourceTemplate, Role,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The context a prompt is written for.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PromptContext {
    /// What the prompt should be about
    pub(crate) context: String,
}

/// A 1×1 PNG, base64.
pub(crate) const PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNQaDgAAAIkAWHdFJqQAAAAAElFTkSuQmCC";

/// Eight samples of 8-bit mono WAV at 8 kHz, base64.
pub(crate) const TICK_WAV: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAoIBggKCAYA==";

/// The prompt that asks the person before it is written.
pub(crate) const ASKING_PROMPT: &str = "test_input_required_result_prompt";

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const WATCHED: &str = "test://watched-resource";
const TEMPLATE: &str = "test://template/{id}/data";

/// Every prompt, as `prompts/list` gives them.
pub(crate) fn prompts() -> Vec<Prompt> {
    let required = |name: &str, description: &str| {
        let mut argument = PromptArgument::new(name).with_description(description);
        argument.required = Some(true);
        argument
    };
    vec![
        Prompt::new(
            "test_simple_prompt",
            Some("A prompt without arguments."),
            None,
        ),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("A prompt written around its two arguments."),
            Some(vec![
                required("arg1", "The first value"),
                required("arg2", "The second value"),
            ]),
        ),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("A prompt that embeds a resource."),
            Some(vec![required(
                "resourceUri",
                "The URI of the resource to embed",
            )]),
        ),
        Prompt::new(
            "test_prompt_with_image",
            Some("A prompt with an image."),
            None,
        ),
        Prompt::new(
            ASKING_PROMPT,
            Some("A prompt that asks the person for its context first."),
            None,
        ),
    ]
}

/// An argument of `request`, required.
fn argument<'a>(request: &'a GetPromptRequestParams, name: &str) -> Result<&'a str, ErrorData> {
    request
        .arguments
        .as_ref()
        .and_then(|args| args.get(name))
        .and_then(|v| v.as_str())
        .ok_or_else(|| {
            ErrorData::invalid_params(format!("the argument `{name}` (a string) is missing"), None)
        })
}

/// One of the prompts that ask nothing.
pub(crate) fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let messages = match request.name.as_str() {
        "test_simple_prompt" => vec![PromptMessage::new_text(
            Role::User,
            "A simple prompt, to test prompts.",
        )],
        "test_prompt_with_arguments" => {
            let (first, second) = (argument(request, "arg1")?, argument(request, "arg2")?);
            vec![PromptMessage::new_text(
                Role::User,
                format!("Written with arg1={first:?} and arg2={second:?}."),
            )]
        }
        "test_prompt_with_embedded_resource" => {
            let uri = argument(request, "resourceUri")?;
            vec![
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(ResourceContents::text(
                        "The text of the resource this prompt embeds.",
                        uri,
                    )),
                ),
                PromptMessage::new_text(Role::User, "Summarise the resource above."),
            ]
        }
        "test_prompt_with_image" => vec![
            PromptMessage::new(Role::User, ContentBlock::image(PIXEL_PNG, "image/png")),
            PromptMessage::new_text(Role::User, "Describe the image above."),
        ],
        other => {
            return Err(ErrorData::invalid_params(
                format!("no prompt named {other}"),
                Some(json!({"name": other})),
            ));
        }
    };
    Ok(GetPromptResult::new(messages))
}

/// `test_input_required_result_prompt`: the person gives the prompt's context first.
pub(crate) async fn asking_prompt(ask: Ask) -> PromptResult {
    let context = match ask
        .key("user_context")
        .form::<PromptContext>("What context should the prompt use?")
        .await?
    {
        Answer::Accepted(c) => c.context,
        Answer::Declined | Answer::Cancelled => "no particular context".to_owned(),
    };
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        format!("Write with this context in mind: {context}."),
    )]))
}

/// Every resource, as `resources/list` gives them.
pub(crate) fn resources() -> Vec<Resource> {
    let resource = |uri: &str, name: &str, mime: &str, description: &str| {
        let mut r = Resource::new(uri, name);
        r.mime_type = Some(mime.to_owned());
        r.description = Some(description.to_owned());
        r
    };
    vec![
        resource(STATIC_TEXT, "static-text", "text/plain", "A fixed text."),
        resource(
            STATIC_BINARY,
            "static-binary",
            "image/png",
            "A fixed image.",
        ),
        resource(
            WATCHED,
            "watched-resource",
            "text/plain",
            "A text one may subscribe to.",
        ),
    ]
}

/// Every resource template.
pub(crate) fn templates() -> Vec<ResourceTemplate> {
    let mut template = ResourceTemplate::new(TEMPLATE, "template-data");
    template.mime_type = Some("application/json".to_owned());
    template.description = Some("Data about the item `id`.".to_owned());
    vec![template]
}

/// `resources/read`; an unknown URI is -32602 naming it in `data.uri` (rmcp keeps the older
/// code, -32002, for 2025 peers).
pub(crate) fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let contents = match uri {
        STATIC_TEXT => ResourceContents::text("The text of the static resource.", uri),
        WATCHED => ResourceContents::text("The text of the watched resource.", uri),
        STATIC_BINARY => ResourceContents::blob(PIXEL_PNG, uri).with_mime_type("image/png"),
        _ => match template_id(uri) {
            Some(id) => ResourceContents::text(
                json!({"id": id, "data": format!("The data of item {id}.")}).to_string(),
                uri,
            )
            .with_mime_type("application/json"),
            None => return Err(not_found(uri)),
        },
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Whether `uri` is a resource of this server (for `resources/subscribe`).
pub(crate) fn known_resource(uri: &str) -> Result<(), ErrorData> {
    match read(uri) {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(format!("no resource {uri}"), Some(json!({"uri": uri})))
}

/// The `id` of `test://template/{id}/data`: one non-empty path segment.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// Values offered for the arguments of `test_prompt_with_arguments`.
const SUGGESTIONS: &[&str] = &["test", "testing", "tested", "sample", "example"];

/// `completion/complete`: suggestions for the arguments of `test_prompt_with_arguments` that
/// start with what was typed; nothing for anything else.
pub(crate) fn complete(request: &CompleteRequestParams) -> CompleteResult {
    let values = match &request.r#ref {
        Reference::Prompt(p) if p.name == "test_prompt_with_arguments" => SUGGESTIONS
            .iter()
            .filter(|s| s.starts_with(&request.argument.value))
            .map(|s| (*s).to_owned())
            .collect(),
        _ => Vec::new(),
    };
    CompleteResult::new(CompletionInfo::with_all_values(values).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_ids_are_one_segment() {
        assert_eq!(template_id("test://template/123/data"), Some("123"));
        assert_eq!(template_id("test://template//data"), None);
        assert_eq!(template_id("test://template/1/2/data"), None);
        assert_eq!(template_id("test://other/1/data"), None);
    }

    #[test]
    fn an_unknown_resource_names_its_uri() {
        let e = read("test://nope").unwrap_err();
        assert_eq!(e.data.unwrap()["uri"], "test://nope");
        assert!(read("test://template/123/data").is_ok());
    }
}

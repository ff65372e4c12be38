//! Admission of a seed-000 `interaction/create` (the User Interaction draft), a compatibility
//! path off the main road: the draft's two types are kinds the engine already knows — a
//! `prompt` is a form request, a `ua` a URL request whose `elicitationId` is the interaction's
//! id — so they are said as elicitations and admitted by exactly the same rules (schema subset,
//! sizes, the URL fields), and a refusal names the field as the draft names it
//! (`interaction.schema.properties.age`, `interaction.url`).
//!
//! What it does not do: anything about how the answer travels back (that is
//! [`Reply::into_interaction_result`](crate::Reply::into_interaction_result)), or the
//! `-32003` error path (the host says its interaction as `interaction/create` params).

use interlude_protocol::interaction::parse_create;
use serde_json::Value;

use super::{Admitted, Limits, Refusal, SchemaCache, admit_json};
use crate::config::Declared;

/// Admits `params`, the params of an `interaction/create`.
pub(super) fn admit(
    params: &Value,
    declared: Declared,
    limits: &Limits,
    schemas: &mut SchemaCache,
) -> Result<Admitted, Refusal> {
    if !declared.user_interaction {
        return Err(Refusal::Interaction {
            field: None,
            message: "`interaction/create` was not declared by this client \
                      (capabilities.userInteraction)"
                .into(),
        });
    }
    let created = parse_create(params).map_err(|e| Refusal::Interaction {
        field: Some(e.field.clone()),
        message: e.to_string(),
    })?;
    // The person turned the draft on for both types: its `ua` does not depend on the host's
    // URL-mode declaration, nor its `prompt` on form mode.
    let both = Declared {
        form: true,
        url: true,
        ..declared
    };
    admit_json(&created.as_elicitation(), both, limits, schemas)
        .map_err(|r| Refusal::Drafted(Box::new(r)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits() -> Limits {
        Limits {
            max_message_chars: 40,
            max_fields: 2,
            max_url_chars: 100,
        }
    }

    const ON: Declared = Declared::FORM.with_user_interaction();

    #[test]
    fn a_prompt_is_a_form_and_a_ua_is_a_link_whose_id_is_the_interactions() {
        let prompt = json!({"id": "p1", "type": "prompt", "interaction": {
            "message": {"type": "text", "text": "About you"},
            "schema": {"type": "object", "properties": {"age": {"type": "number", "minimum": 18}},
                       "required": ["age"]}}});
        let Ok(Admitted::Form {
            message, schema, ..
        }) = admit(&prompt, ON, &limits(), &mut SchemaCache::default())
        else {
            panic!("a prompt is a form");
        };
        assert_eq!(message, "About you");
        assert_eq!(schema.fields.len(), 1);

        // The host declared form mode only: the draft's `ua` is its own declaration.
        let ua = json!({"id": "u1", "type": "ua", "interaction": {"url": "https://example.com/x"}});
        let Ok(Admitted::Url {
            url,
            elicitation_id,
            message,
        }) = admit(&ua, ON, &limits(), &mut SchemaCache::default())
        else {
            panic!("a ua is a link");
        };
        assert_eq!(url, "https://example.com/x");
        assert_eq!(elicitation_id.as_deref(), Some("u1"));
        assert_eq!(message, "", "the draft's message is optional");
    }

    #[test]
    fn refusals_name_the_drafts_fields() {
        let cases = [
            (
                json!({"id": "p", "type": "prompt", "interaction": {"message": "x",
                    "schema": {"type": "object", "properties": {"a": {"type": "object"}}}}}),
                "interaction.schema.properties.a",
            ),
            (
                json!({"id": "p", "type": "prompt", "interaction": {
                    "message": "a message far longer than forty characters, surely",
                    "schema": {"type": "object", "properties": {}}}}),
                "interaction.message",
            ),
            (
                json!({"id": "p", "type": "prompt", "interaction": {"message": "x",
                    "schema": {"type": "object", "properties": {
                        "a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}}}}),
                "interaction.schema",
            ),
            (
                json!({"id": "u", "type": "ua", "interaction": {"url": format!("https://x/{}", "a".repeat(120))}}),
                "interaction.url",
            ),
            (
                json!({"id": "x".repeat(300), "type": "ua", "interaction": {"url": "https://x/"}}),
                "id",
            ),
            (json!({"id": "u", "type": "sms", "interaction": {}}), "type"),
        ];
        for (params, field) in cases {
            let refusal =
                admit(&params, ON, &limits(), &mut SchemaCache::default()).expect_err("refused");
            assert_eq!(refusal.field().as_deref(), Some(field), "{params}");
            let text = refusal.to_string();
            assert!(!text.contains("requestedSchema"), "{text}");
        }
    }

    #[test]
    fn an_undeclared_draft_is_refused() {
        let ua = json!({"id": "u1", "type": "ua", "interaction": {"url": "https://example.com/"}});
        let refusal = admit(
            &ua,
            Declared::FORM_AND_URL,
            &limits(),
            &mut SchemaCache::default(),
        )
        .expect_err("undeclared");
        assert!(refusal.to_string().contains("userInteraction"), "{refusal}");
    }
}

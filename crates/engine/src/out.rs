//! What one input produces: the effects, in order, with the helpers every kind uses to write
//! them (audit a request, refuse it, reply).

use std::sync::Arc;

use serde_json::Value;

use crate::audit::{AuditEvent, AuditRecord};
use crate::ids::RequestId;
use crate::io::{Effect, Reply};
use crate::request::Header;

/// The effects of the input being handled, and its time.
#[derive(Debug)]
pub(crate) struct Out {
    pub(crate) now_ms: u64,
    effects: Vec<Effect>,
}

impl Out {
    /// Effects at `now_ms`, appended to `effects`.
    pub(crate) fn with(now_ms: u64, effects: Vec<Effect>) -> Out {
        Out { now_ms, effects }
    }

    pub(crate) fn push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    pub(crate) fn into_effects(self) -> Vec<Effect> {
        self.effects
    }

    /// An audit record for request `id` of `server`, now.
    pub(crate) fn audit(&mut self, id: RequestId, server: &Arc<str>, event: AuditEvent) {
        self.effects.push(Effect::Audit(AuditRecord {
            at_ms: self.now_ms,
            request: id.0,
            server: server.clone(),
            server_title: None,
            event,
        }));
    }

    /// Refuses request `id` with a JSON-RPC error (audited with the message).
    pub(crate) fn refuse(
        &mut self,
        id: RequestId,
        server: &Arc<str>,
        code: i32,
        message: String,
        data: Option<Value>,
    ) {
        self.audit(
            id,
            server,
            AuditEvent::Refused {
                reason: message.clone(),
            },
        );
        self.reply(
            id,
            Reply::Error {
                code,
                message,
                data,
            },
        );
    }

    /// Sends `reply` for request `id`.
    pub(crate) fn reply(&mut self, id: RequestId, reply: Reply) {
        self.effects.push(Effect::Reply { id, reply });
    }

    /// Audits a request's arrival.
    pub(crate) fn received(
        &mut self,
        header: &Header,
        message: &str,
        fields: Arc<[String]>,
        link: Option<String>,
    ) {
        let event = AuditEvent::Received {
            era: header.era.as_str(),
            method: header.method.as_str(),
            message: message.to_owned(),
            fields,
            link,
        };
        self.audit(header.id, &header.server_name, event);
    }
}

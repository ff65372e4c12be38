//! The draft's `ua` interaction: [`UrlFlows::run`] and [`UrlFlows::require`] for a client of
//! the draft send the person to a new flow's page with it (the interaction's id is the flow's).
//!
//! Above the flows' bookkeeping (`url/flows.rs`), which it uses, and below the era choice of
//! `url/run.rs`, which calls it; it sends through `interaction_create.rs`.

use interlude_protocol::Answer;
use interlude_protocol::interaction::{CreatedInteraction, Interaction, InteractionType};
use rmcp::ErrorData;

use crate::ask::Ask;
use crate::error::AskError;
use crate::interaction_create::{Reply, send};
use crate::url::flows::{FlowError, FlowKind, Forget, UrlFlows};
use crate::url::store::{Flow, FlowStatus, UserId};

/// [`UrlFlows::run`] for a client speaking the draft: a `ua` interaction on a new flow's page;
/// `{}` is the person's consent, after which the call waits for the flow.
pub(crate) async fn run(
    flows: &UrlFlows,
    ask: &Ask,
    user: UserId,
    kind: &FlowKind,
    message: String,
) -> Result<Answer<Flow>, AskError> {
    let flow = flows.start(user, kind).await?;
    let done = flows.wait_for(&flow.id, None);
    let _forget = Forget {
        flows,
        id: flow.id.clone(),
    };
    let created = ua(flows, &flow, message);
    let over = ask
        .config()
        .interactions
        .create(&created.id, InteractionType::Ua, ask.context());
    let reply = send(&ask.call, &created).await?;
    let answer = match reply {
        Reply::Result(_) => flows.until_over(ask, &flow.id, &done).await,
        Reply::Declined => {
            flows.end(&flow.id, FlowStatus::Declined).await?;
            Ok(Answer::Declined)
        }
        Reply::Cancelled => {
            flows
                .end(
                    &flow.id,
                    FlowStatus::Failed {
                        reason: "the person dismissed the request".into(),
                    },
                )
                .await?;
            Ok(Answer::Cancelled)
        }
    };
    over.send_replace(true);
    answer
}

/// [`UrlFlows::require`] for a client speaking the draft: `-32003` with a `ua` interaction on a
/// new flow's page. Starts the flow.
pub(crate) async fn required(
    flows: &UrlFlows,
    ask: &Ask,
    kind: &FlowKind,
    message: &str,
) -> Result<ErrorData, FlowError> {
    let user = flows.user(ask)?;
    let flow = flows.start(user, kind).await?;
    let created = ua(flows, &flow, message.to_owned());
    let _ = ask
        .config()
        .interactions
        .create(&created.id, InteractionType::Ua, ask.context());
    Ok(created.to_required_error())
}

/// The `ua` interaction of `flow`: its page, and the interaction's id is the flow's.
fn ua(flows: &UrlFlows, flow: &Flow, message: String) -> CreatedInteraction {
    CreatedInteraction {
        id: flow.id.as_str().to_owned(),
        interaction: Interaction::Ua {
            url: flows.url_of(&flow.id),
            message: Some(message),
        },
    }
}

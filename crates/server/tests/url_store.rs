//! The flow store of URL-mode elicitation: one behavioural suite run against both
//! implementations (`MemoryStore` and `SqliteStore`), then what only the SQLite file can show —
//! a restart losing nothing, two processes' connections racing, a corrupt or newer file refused.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use interlude_server::task::Requestor;
use interlude_server::url::{
    Flow, FlowId, FlowStatus, FlowStore, MemoryStore, Secret, SqliteStore, StoreError, StoreKey,
    StoredTask, UserId,
};
use rmcp::model::{DetailedTask, Task, TaskPayload, TaskStatus};
use serde_json::json;

const T0: u64 = 1_767_225_600_000;
const MINUTE: u64 = 60_000;

fn alice() -> UserId {
    UserId::new("github|583231")
}

fn bob() -> UserId {
    UserId::new("github|1")
}

/// A pending flow of `user` started at `at`, expiring ten minutes later.
fn flow_at(user: UserId, at: u64) -> Flow {
    Flow::new(user, "api_key:openai", at, 10 * MINUTE)
}

/// Runs each suite function against a fresh store of each kind.
macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        mod memory {
            use super::*;
            $(#[tokio::test] async fn $name() { super::$name(&MemoryStore::default()).await; })*
        }
        mod sqlite {
            use super::*;
            $(#[tokio::test] async fn $name() {
                super::$name(&SqliteStore::in_memory().unwrap()).await;
            })*
        }
        mod sqlite_file {
            use super::*;
            $(#[tokio::test] async fn $name() {
                let db = TempDb::new(stringify!($name));
                super::$name(&SqliteStore::open(&db.path).unwrap()).await;
            })*
        }
    };
}

suite!(
    insert_and_read,
    duplicate_id_is_refused,
    duplicate_lookup_is_refused,
    finds_a_flow_by_its_lookup_key,
    completes_exactly_once_when_requests_race,
    an_expired_flow_cannot_complete,
    transition_compares_the_variant,
    expire_marks_then_deletes,
    pending_flows_of_a_user,
    set_data_replaces_the_data,
    secrets_are_per_user_and_overwritten,
    times_beyond_i64_are_refused,
    completing_with_a_secret_keeps_both_or_neither,
    a_failing_call_leaves_the_others_made_with_it,
    a_completed_flow_s_outcome_is_claimed_by_compare_and_set,
    tasks_are_kept_replaced_and_expired,
);

/// A task of the Tasks extension, `status`, written at `at` and kept until `until`.
fn stored_task(id: &str, payload: TaskPayload, at: u64, until: Option<u64>) -> StoredTask {
    let now = "2026-11-29T08:00:00Z";
    StoredTask {
        task: DetailedTask::new(Task::new(id, TaskStatus::Working, now, now), payload),
        requestor: Requestor::nobody(),
        updated_at_ms: at,
        expires_at_ms: until,
    }
}

/// Tasks: kept under their id, replaced whole (its end over its start), forgotten by `expire`
/// once their time is up — and one kept without an end of time stays.
async fn tasks_are_kept_replaced_and_expired(store: &dyn FlowStore) {
    assert_eq!(store.task("t-1").await.unwrap(), None);
    let started = stored_task("t-1", TaskPayload::Working, T0, Some(T0 + 5 * MINUTE));
    store.put_task(&started).await.unwrap();
    assert_eq!(store.task("t-1").await.unwrap(), Some(started));
    let mut result = serde_json::Map::new();
    result.insert(
        "content".into(),
        json!([{"type": "text", "text": "Deployed."}]),
    );
    let ended = stored_task(
        "t-1",
        TaskPayload::Completed { result },
        T0 + MINUTE,
        Some(T0 + 6 * MINUTE),
    );
    store.put_task(&ended).await.unwrap();
    assert_eq!(store.task("t-1").await.unwrap(), Some(ended.clone()));
    let forever = stored_task("t-2", TaskPayload::Cancelled, T0, None);
    store.put_task(&forever).await.unwrap();

    assert_eq!(store.expire(T0 + 6 * MINUTE - 1, 0).await.unwrap(), 0);
    assert_eq!(store.task("t-1").await.unwrap(), Some(ended));
    assert_eq!(store.expire(T0 + 6 * MINUTE, 0).await.unwrap(), 1);
    assert_eq!(store.task("t-1").await.unwrap(), None);
    assert_eq!(store.task("t-2").await.unwrap(), Some(forever));

    let too_late = stored_task("t-3", TaskPayload::Working, u64::MAX, None);
    assert!(matches!(
        store.put_task(&too_late).await,
        Err(StoreError::TimeOutOfRange {
            what: "updated_at_ms",
            ..
        })
    ));
}

/// `claim`: only a completed flow's outcome, and only from the token recorded now; of several
/// requests presenting the same token, one wins.
async fn a_completed_flow_s_outcome_is_claimed_by_compare_and_set(store: &dyn FlowStore) {
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    assert!(!store.claim(&flow.id, None, "t1").await.unwrap(), "pending");
    assert!(
        store
            .transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, T0)
            .await
            .unwrap()
    );
    let racers = ["a", "b", "c", "d"].map(|to| store.claim(&flow.id, None, to));
    let won = futures::future::join_all(racers)
        .await
        .into_iter()
        .filter(|r| *r.as_ref().unwrap())
        .count();
    assert_eq!(won, 1);
    assert!(!store.claim(&flow.id, None, "e").await.unwrap(), "taken");
    assert!(!store.claim(&flow.id, Some("zz"), "e").await.unwrap());
    let unknown = FlowId::new_random();
    assert!(!store.claim(&unknown, None, "e").await.unwrap());
    let declined = flow_at(alice(), T0);
    store.insert_flow(&declined).await.unwrap();
    store
        .transition(&declined.id, &FlowStatus::Pending, FlowStatus::Declined, T0)
        .await
        .unwrap();
    assert!(!store.claim(&declined.id, None, "e").await.unwrap());
}

async fn insert_and_read(store: &dyn FlowStore) {
    let mut flow = flow_at(alice(), T0);
    flow.kind = "oauth:github".to_owned();
    flow.elicitation_id = Some("el-7".to_owned());
    flow.session = Some("session-abc".to_owned());
    flow.lookup = Some("state-xyz".to_owned());
    flow.data = json!({"pkce_verifier": "v3r1f13r", "scopes": ["repo", "read:user"]});
    store.insert_flow(&flow).await.unwrap();

    assert_eq!(store.flow(&flow.id).await.unwrap(), Some(flow.clone()));
    assert_eq!(store.flow(&FlowId::new_random()).await.unwrap(), None);

    // A flow with none of the optional parts reads back as it was too.
    let bare = flow_at(bob(), T0 + 1);
    store.insert_flow(&bare).await.unwrap();
    assert_eq!(store.flow(&bare.id).await.unwrap(), Some(bare));
}

async fn duplicate_id_is_refused(store: &dyn FlowStore) {
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    let mut again = flow_at(bob(), T0 + 5);
    again.id = flow.id.clone();
    match store.insert_flow(&again).await {
        Err(StoreError::DuplicateId(id)) => assert_eq!(id, flow.id),
        other => panic!("expected DuplicateId, got {other:?}"),
    }
    assert_eq!(store.flow(&flow.id).await.unwrap(), Some(flow));
}

async fn duplicate_lookup_is_refused(store: &dyn FlowStore) {
    let mut first = flow_at(alice(), T0);
    first.lookup = Some("state-1".to_owned());
    store.insert_flow(&first).await.unwrap();

    let mut second = flow_at(bob(), T0);
    second.lookup = Some("state-1".to_owned());
    assert!(matches!(
        store.insert_flow(&second).await,
        Err(StoreError::DuplicateLookup)
    ));
    assert_eq!(store.flow(&second.id).await.unwrap(), None);
    assert_eq!(
        store.flow_by_lookup("state-1").await.unwrap().map(|f| f.id),
        Some(first.id)
    );

    // Flows without a lookup key never collide.
    store.insert_flow(&flow_at(alice(), T0)).await.unwrap();
    store.insert_flow(&flow_at(alice(), T0)).await.unwrap();
}

async fn finds_a_flow_by_its_lookup_key(store: &dyn FlowStore) {
    let mut flow = flow_at(alice(), T0);
    flow.lookup = Some("oauth-state-Qm9vYmFy".to_owned());
    store.insert_flow(&flow).await.unwrap();
    store.insert_flow(&flow_at(alice(), T0)).await.unwrap();

    assert_eq!(
        store.flow_by_lookup("oauth-state-Qm9vYmFy").await.unwrap(),
        Some(flow)
    );
    assert_eq!(
        store.flow_by_lookup("oauth-state-other").await.unwrap(),
        None
    );
    assert_eq!(store.flow_by_lookup("").await.unwrap(), None);
}

async fn completes_exactly_once_when_requests_race(store: &dyn FlowStore) {
    const RACERS: usize = 8;
    for round in 0..10 {
        let flow = flow_at(alice(), T0);
        store.insert_flow(&flow).await.unwrap();
        // Every call is under way before any is awaited: they meet in the store together.
        let racers = (0..RACERS).map(|_| {
            store.transition(
                &flow.id,
                &FlowStatus::Pending,
                FlowStatus::Completed,
                T0 + 1,
            )
        });
        let results = futures::future::join_all(racers.collect::<Vec<_>>()).await;
        let winners = results.into_iter().filter(|r| *r.as_ref().unwrap()).count();
        assert_eq!(winners, 1, "round {round}");
        assert_eq!(
            store.flow(&flow.id).await.unwrap().unwrap().status,
            FlowStatus::Completed
        );
    }
}

async fn an_expired_flow_cannot_complete(store: &dyn FlowStore) {
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    let complete = async |at| {
        store
            .transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, at)
            .await
            .unwrap()
    };
    // Expired from `expires_at_ms` on, however long after.
    assert!(!complete(flow.expires_at_ms).await);
    assert!(!complete(flow.expires_at_ms + MINUTE).await);
    assert!(!complete(u64::MAX).await);
    assert_eq!(
        store.flow(&flow.id).await.unwrap().unwrap().status,
        FlowStatus::Pending
    );
    // One millisecond earlier it still could.
    assert!(complete(flow.expires_at_ms - 1).await);

    // Other moves do not depend on the time.
    let late = flow_at(alice(), T0);
    store.insert_flow(&late).await.unwrap();
    assert!(
        store
            .transition(
                &late.id,
                &FlowStatus::Pending,
                FlowStatus::Declined,
                late.expires_at_ms + 1
            )
            .await
            .unwrap()
    );
}

async fn transition_compares_the_variant(store: &dyn FlowStore) {
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    let failed = |reason: &str| FlowStatus::Failed {
        reason: reason.to_owned(),
    };

    // Not from a status it is not in; not for an unknown id.
    assert!(
        !store
            .transition(&flow.id, &FlowStatus::Declined, FlowStatus::Completed, T0)
            .await
            .unwrap()
    );
    assert!(
        !store
            .transition(
                &FlowId::new_random(),
                &FlowStatus::Pending,
                FlowStatus::Completed,
                T0
            )
            .await
            .unwrap()
    );

    assert!(
        store
            .transition(
                &flow.id,
                &FlowStatus::Pending,
                failed("provider said no"),
                T0 + 1
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store.flow(&flow.id).await.unwrap().unwrap().status,
        failed("provider said no")
    );
    // `from` matches by variant: any reason matches a Failed flow.
    assert!(
        store
            .transition(
                &flow.id,
                &failed("anything"),
                failed("second reason"),
                T0 + 2
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store.flow(&flow.id).await.unwrap().unwrap().status,
        failed("second reason")
    );
    // A finished flow does not complete from `Pending`.
    assert!(
        !store
            .transition(
                &flow.id,
                &FlowStatus::Pending,
                FlowStatus::Completed,
                T0 + 3
            )
            .await
            .unwrap()
    );
}

async fn expire_marks_then_deletes(store: &dyn FlowStore) {
    let keep = 5 * MINUTE;
    // Done at T0 + 1 min.
    let mut done = flow_at(alice(), T0);
    done.lookup = Some("state-done".to_owned());
    store.insert_flow(&done).await.unwrap();
    assert!(
        store
            .transition(
                &done.id,
                &FlowStatus::Pending,
                FlowStatus::Completed,
                T0 + MINUTE
            )
            .await
            .unwrap()
    );
    // Pending, expiring at T0 + 10 min.
    let stale = flow_at(alice(), T0);
    store.insert_flow(&stale).await.unwrap();
    // Pending, expiring at T0 + 30 min.
    let live = flow_at(bob(), T0 + 20 * MINUTE);
    store.insert_flow(&live).await.unwrap();

    // Before anything is due, nothing changes.
    assert_eq!(store.expire(T0 + 2 * MINUTE, keep).await.unwrap(), 0);

    // At T0 + 10 min: `stale` is marked; `done` (finished 9 min ago) is deleted.
    let now = T0 + 10 * MINUTE;
    assert_eq!(store.expire(now, keep).await.unwrap(), 2);
    assert_eq!(store.flow(&done.id).await.unwrap(), None);
    assert_eq!(store.flow_by_lookup("state-done").await.unwrap(), None);
    let marked = store.flow(&stale.id).await.unwrap().unwrap();
    assert_eq!(marked.status, FlowStatus::Expired);
    assert_eq!(
        store.flow(&live.id).await.unwrap().unwrap().status,
        FlowStatus::Pending
    );

    // A marked flow counts as finished when it was marked, and is kept that long.
    assert_eq!(store.expire(now + keep - 1, keep).await.unwrap(), 0);
    assert!(store.flow(&stale.id).await.unwrap().is_some());
    assert_eq!(store.expire(now + keep, keep).await.unwrap(), 1);
    assert_eq!(store.flow(&stale.id).await.unwrap(), None);

    // A deleted flow's lookup key is free again.
    let mut reuse = flow_at(alice(), now);
    reuse.lookup = Some("state-done".to_owned());
    store.insert_flow(&reuse).await.unwrap();
    assert_eq!(
        store.flow(&live.id).await.unwrap().unwrap().status,
        FlowStatus::Pending
    );
}

async fn pending_flows_of_a_user(store: &dyn FlowStore) {
    let older = flow_at(alice(), T0);
    let newer = flow_at(alice(), T0 + MINUTE);
    let short = Flow::new(alice(), "payment", T0, MINUTE);
    let declined = flow_at(alice(), T0);
    let bobs = flow_at(bob(), T0);
    // Inserted out of order: the answer is sorted by start.
    for flow in [&newer, &short, &declined, &bobs, &older] {
        store.insert_flow(flow).await.unwrap();
    }
    assert!(
        store
            .transition(&declined.id, &FlowStatus::Pending, FlowStatus::Declined, T0)
            .await
            .unwrap()
    );

    let ids = async |now| -> Vec<FlowId> {
        store
            .pending_flows_of(&alice(), now)
            .await
            .unwrap()
            .into_iter()
            .map(|f| f.id)
            .collect()
    };
    // `short` and `older` start at the same millisecond: ties are broken by id.
    let mut first_two = vec![short.id.clone(), older.id.clone()];
    first_two.sort();
    let mut expected = first_two;
    expected.push(newer.id.clone());
    assert_eq!(ids(T0 + 1).await, expected);
    // A minute in, `short` has expired even though nobody marked it.
    assert_eq!(
        ids(T0 + MINUTE).await,
        vec![older.id.clone(), newer.id.clone()]
    );
    assert!(
        store
            .pending_flows_of(&UserId::new("nobody"), T0)
            .await
            .unwrap()
            .is_empty()
    );
}

async fn set_data_replaces_the_data(store: &dyn FlowStore) {
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    let data = json!({"pkce_verifier": "dBjftJeZ4CVP", "redirect": "/done?x=1&y='2'"});
    assert!(store.set_data(&flow.id, data.clone()).await.unwrap());
    let read = store.flow(&flow.id).await.unwrap().unwrap();
    assert_eq!(read.data, data);
    assert_eq!(read.status, FlowStatus::Pending);
    assert!(
        !store
            .set_data(&FlowId::new_random(), json!(1))
            .await
            .unwrap()
    );
}

async fn secrets_are_per_user_and_overwritten(store: &dyn FlowStore) {
    store
        .put_secret(&alice(), "openai", &Secret::from("sk-alice-1"), T0)
        .await
        .unwrap();
    store
        .put_secret(&bob(), "openai", &Secret::from("sk-bob"), T0)
        .await
        .unwrap();
    let read = async |user: &UserId, name: &str| {
        store
            .secret(user, name)
            .await
            .unwrap()
            .map(|s| s.expose().to_vec())
    };
    assert_eq!(read(&alice(), "openai").await, Some(b"sk-alice-1".to_vec()));
    assert_eq!(read(&bob(), "openai").await, Some(b"sk-bob".to_vec()));
    assert_eq!(read(&UserId::new("github|2"), "openai").await, None);
    assert_eq!(read(&alice(), "github").await, None);

    // A second put replaces the first.
    store
        .put_secret(&alice(), "openai", &Secret::from("sk-alice-2"), T0 + 1)
        .await
        .unwrap();
    assert_eq!(read(&alice(), "openai").await, Some(b"sk-alice-2".to_vec()));
    assert_eq!(read(&bob(), "openai").await, Some(b"sk-bob".to_vec()));

    // Bytes that are not UTF-8 come back as they went in.
    let raw = vec![0u8, 0xff, 0xfe, 7];
    store
        .put_secret(&alice(), "raw", &Secret::from(raw.clone()), T0)
        .await
        .unwrap();
    let back = store.secret(&alice(), "raw").await.unwrap().unwrap();
    assert_eq!(back.expose(), raw.as_slice());
    assert_eq!(back.expose_str(), None);

    // Deleting is per user too.
    assert!(store.delete_secret(&alice(), "openai").await.unwrap());
    assert!(!store.delete_secret(&alice(), "openai").await.unwrap());
    assert_eq!(read(&alice(), "openai").await, None);
    assert_eq!(read(&bob(), "openai").await, Some(b"sk-bob".to_vec()));
}

async fn completing_with_a_secret_keeps_both_or_neither(store: &dyn FlowStore) {
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    let key = Secret::from("sk-1");
    assert!(
        store
            .complete_with_secret(&flow.id, &alice(), "openai", &key, T0 + 1)
            .await
            .unwrap()
    );
    assert_eq!(
        store.flow(&flow.id).await.unwrap().unwrap().status,
        FlowStatus::Completed
    );
    assert_eq!(
        store
            .secret(&alice(), "openai")
            .await
            .unwrap()
            .unwrap()
            .expose(),
        b"sk-1"
    );
    // Done already: nothing changes, nothing is kept.
    let again = Secret::from("sk-2");
    assert!(
        !store
            .complete_with_secret(&flow.id, &alice(), "openai", &again, T0 + 2)
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .secret(&alice(), "openai")
            .await
            .unwrap()
            .unwrap()
            .expose(),
        b"sk-1"
    );
    // Expired: neither.
    let late = flow_at(bob(), T0);
    store.insert_flow(&late).await.unwrap();
    let after = late.expires_at_ms;
    assert!(
        !store
            .complete_with_secret(&late.id, &bob(), "openai", &key, after)
            .await
            .unwrap()
    );
    assert!(store.secret(&bob(), "openai").await.unwrap().is_none());
    assert_eq!(
        store.flow(&late.id).await.unwrap().unwrap().status,
        FlowStatus::Pending
    );
}

async fn a_failing_call_leaves_the_others_made_with_it(store: &dyn FlowStore) {
    // Calls made together (which `SqliteStore` commits in one transaction): the duplicate is
    // refused, the rest are kept, each caller hears of its own call only.
    let first = flow_at(alice(), T0);
    store.insert_flow(&first).await.unwrap();
    let mut duplicate = flow_at(bob(), T0);
    duplicate.id = first.id.clone();
    let (before, after) = (flow_at(bob(), T0 + 1), flow_at(bob(), T0 + 2));
    let (key, owner) = (Secret::from("sk-together"), alice());
    let (a, b, c, d) = futures::join!(
        store.insert_flow(&before),
        store.insert_flow(&duplicate),
        store.complete_with_secret(&first.id, &owner, "openai", &key, T0 + 3),
        store.insert_flow(&after),
    );
    a.unwrap();
    assert!(matches!(b, Err(StoreError::DuplicateId(_))), "{b:?}");
    assert!(c.unwrap());
    d.unwrap();
    assert_eq!(store.flow(&before.id).await.unwrap(), Some(before));
    assert_eq!(store.flow(&after.id).await.unwrap(), Some(after));
    let kept = store.flow(&first.id).await.unwrap().unwrap();
    assert_eq!((kept.user, kept.status), (alice(), FlowStatus::Completed));
    let secret = store.secret(&alice(), "openai").await.unwrap().unwrap();
    assert_eq!(secret.expose_str(), Some("sk-together"));
}

async fn times_beyond_i64_are_refused(store: &dyn FlowStore) {
    let mut flow = flow_at(alice(), T0);
    flow.expires_at_ms = u64::MAX;
    assert!(matches!(
        store.insert_flow(&flow).await,
        Err(StoreError::TimeOutOfRange {
            what: "expires_at_ms",
            ..
        })
    ));
    assert_eq!(store.flow(&flow.id).await.unwrap(), None);
    // The largest time it keeps is kept as it is.
    flow.expires_at_ms = i64::MAX as u64;
    store.insert_flow(&flow).await.unwrap();
    assert_eq!(store.flow(&flow.id).await.unwrap(), Some(flow));
}

#[test]
fn secrets_and_flows_do_not_show_their_content() {
    let secret = Secret::from("sk-live-do-not-log");
    for shown in [
        format!("{secret:?}"),
        format!("{secret}"),
        format!("{secret:#?}"),
    ] {
        assert_eq!(shown, "Secret(***)");
    }

    let mut flow = flow_at(alice(), T0);
    flow.lookup = Some("state-do-not-log".to_owned());
    flow.data = json!({"pkce_verifier": "verifier-do-not-log"});
    let shown = format!("{flow:?}");
    assert!(!shown.contains("do-not-log"), "{shown}");
    assert!(shown.contains(flow.id.as_str()), "{shown}");
}

#[test]
fn flow_ids_are_22_base64url_characters() {
    let id = FlowId::new_random();
    let text = id.as_str();
    assert_eq!(text.len(), 22);
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "{text}"
    );
    assert_eq!(FlowId::parse(text), Ok(id.clone()));
    assert_eq!(text.parse::<FlowId>(), Ok(id.clone()));
    assert_eq!(id.to_string(), text);
    assert_ne!(FlowId::new_random(), id);
    // Both characters that differ from standard base64 are accepted.
    assert!(FlowId::parse("AAAAAAAAAAAAAAAA-_AAAA").is_ok());
}

#[test]
fn flow_id_parse_refuses_anything_else() {
    let good = "AAAAAAAAAAAAAAAAAAAAAA";
    assert!(FlowId::parse(good).is_ok());
    let refused = [
        "",
        &good[..21],
        &format!("{good}A"),
        // Padding, in place of the last characters and added at the end.
        "AAAAAAAAAAAAAAAAAAAA==",
        &format!("{good}=="),
        // Standard base64's alphabet.
        "AAAAAAAAAAAAAAAAAAA/AA",
        "AAAAAAAAAAAAAAAAAAA+AA",
        // Non-ASCII, 22 bytes long: 20 letters and `é`.
        "AAAAAAAAAAAAAAAAAAAAé",
        "AAAAAAAAAAAAAAAAAAAAAé",
        // Whitespace, path and URL syntax.
        " AAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAA\n",
        "AAAAAAAAA/../AAAAAAAAA",
        "AAAAAAAAAAAAAAAAAA%2F0",
        "AAAAAAAAAAAAAAAAAAAA.A",
        // A last character carrying bits beyond the 128: a second spelling of some id.
        "AAAAAAAAAAAAAAAAAAAAAB",
        "AAAAAAAAAAAAAAAAAAAAA_",
    ];
    for text in refused {
        assert!(FlowId::parse(text).is_err(), "accepted {text:?}");
    }
    // The error does not repeat what it was given.
    let message = FlowId::parse("<script>alert(1)</script>")
        .unwrap_err()
        .to_string();
    assert!(!message.contains("script"), "{message}");
}

/// A fresh SQLite file name in the temp folder, removed with its `-wal` and `-shm` on drop.
struct TempDb {
    path: PathBuf,
}

impl TempDb {
    fn new(name: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = format!(
            "interlude-url-store-{}-{}-{}-{name}.sqlite",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        );
        TempDb {
            path: std::env::temp_dir().join(unique),
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal", ".key"] {
            let mut path = self.path.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

#[tokio::test]
async fn sqlite_keeps_flows_and_secrets_across_a_restart() {
    let db = TempDb::new("restart");
    let mut flow = flow_at(alice(), T0);
    flow.lookup = Some("state-restart".to_owned());
    flow.data = json!({"pkce_verifier": "abc"});
    {
        let store = SqliteStore::open(&db.path).unwrap();
        store.insert_flow(&flow).await.unwrap();
        store
            .put_secret(&alice(), "github", &Secret::from("gho_token"), T0 + 1)
            .await
            .unwrap();
    } // The server stops.

    let store = SqliteStore::open(&db.path).unwrap();
    assert_eq!(store.flow(&flow.id).await.unwrap(), Some(flow.clone()));
    assert_eq!(
        store
            .flow_by_lookup("state-restart")
            .await
            .unwrap()
            .map(|f| f.id),
        Some(flow.id.clone())
    );
    assert!(
        store
            .transition(
                &flow.id,
                &FlowStatus::Pending,
                FlowStatus::Completed,
                T0 + 2
            )
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .secret(&alice(), "github")
            .await
            .unwrap()
            .unwrap()
            .expose_str(),
        Some("gho_token")
    );
    drop(store);

    // And the completion itself survives the next restart.
    let store = SqliteStore::open(&db.path).unwrap();
    assert_eq!(
        store.flow(&flow.id).await.unwrap().unwrap().status,
        FlowStatus::Completed
    );
}

/// A task bound to its requestor (here a signed-in principal) is read back bound to the same
/// one after the store is reopened — a restart does not unbind it — and a task bound to
/// nobody stays bound to nobody.
#[tokio::test]
async fn sqlite_keeps_a_task_s_binding_across_a_restart() {
    let db = TempDb::new("task-binding");
    let mut bound = stored_task("t-bound", TaskPayload::Working, T0, Some(T0 + MINUTE));
    bound.requestor = Requestor::nobody().with_principal(alice());
    let unbound = stored_task("t-unbound", TaskPayload::Working, T0, Some(T0 + MINUTE));
    {
        let store = SqliteStore::open(&db.path).unwrap();
        store.put_task(&bound).await.unwrap();
        store.put_task(&unbound).await.unwrap();
    } // The server stops.

    let store = SqliteStore::open(&db.path).unwrap();
    let read = store.task("t-bound").await.unwrap().unwrap();
    assert_eq!(read.requestor, Requestor::nobody().with_principal(alice()));
    assert_ne!(read.requestor, Requestor::nobody().with_principal(bob()));
    assert_eq!(read, bound);
    let read = store.task("t-unbound").await.unwrap().unwrap();
    assert_eq!(read.requestor, Requestor::nobody());
}

#[tokio::test]
async fn sqlite_connections_to_one_file_complete_a_flow_once() {
    // Two servers (two connections) sharing one file, racing to complete the same flow.
    let db = TempDb::new("two-connections");
    let first = SqliteStore::open(&db.path).unwrap();
    let second = SqliteStore::open(&db.path).unwrap();
    for round in 0..5 {
        let flow = flow_at(alice(), T0);
        first.insert_flow(&flow).await.unwrap();
        // Two threads, each with its connection, race on the file.
        let racers = [&first, &second, &first, &second].map(|store| {
            store.transition(&flow.id, &FlowStatus::Pending, FlowStatus::Completed, T0)
        });
        let results = futures::future::join_all(racers).await;
        let winners = results.into_iter().filter(|r| *r.as_ref().unwrap()).count();
        assert_eq!(winners, 1, "round {round}");
    }
}

#[test]
fn sqlite_refuses_a_corrupt_file() {
    let db = TempDb::new("corrupt");
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 13) as u8).collect();
    std::fs::write(&db.path, &garbage).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&db.path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    match SqliteStore::open(&db.path) {
        Err(StoreError::Backend(e)) => assert!(!e.to_string().is_empty()),
        other => panic!("expected a backend error, got {other:?}"),
    }
    // Left as it was.
    assert_eq!(std::fs::read(&db.path).unwrap(), garbage);
}

#[test]
fn sqlite_refuses_a_file_of_a_newer_schema() {
    let db = TempDb::new("newer");
    drop(SqliteStore::open(&db.path).unwrap());
    {
        let conn = rusqlite::Connection::open(&db.path).unwrap();
        conn.execute("UPDATE schema_version SET version = 99", [])
            .unwrap();
    }
    match SqliteStore::open(&db.path) {
        Err(StoreError::NewerSchema { found, known }) => {
            assert_eq!((found, known), (99, 5));
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
}

/// A file of schema version 4 (tasks not bound yet) is brought to version 5: its tasks are
/// read back bound to nobody, as they were.
#[tokio::test]
async fn sqlite_reads_the_tasks_of_schema_version_4_as_bound_to_nobody() {
    let db = TempDb::new("tasks-v4");
    let task = stored_task("t-old", TaskPayload::Working, T0, None);
    {
        let store = SqliteStore::open(&db.path).unwrap();
        store.put_task(&task).await.unwrap();
    }
    {
        let conn = rusqlite::Connection::open(&db.path).unwrap();
        conn.execute_batch(
            "ALTER TABLE tasks DROP COLUMN requestor; UPDATE schema_version SET version = 4;",
        )
        .unwrap();
    }
    let store = SqliteStore::open(&db.path).unwrap();
    let read = store.task("t-old").await.unwrap().unwrap();
    assert_eq!(read.requestor, Requestor::nobody());
    assert_eq!(read, task);
    drop(store);
    let conn = rusqlite::Connection::open(&db.path).unwrap();
    let version: i64 = conn
        .query_row("SELECT max(version) FROM schema_version", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(version, 5);
}

#[test]
fn sqlite_refuses_a_folder_that_does_not_exist() {
    let db = TempDb::new("missing");
    let path = db.path.join("no-such-folder").join("flows.sqlite");
    assert!(SqliteStore::open(path).is_err());
}

#[cfg(unix)]
#[tokio::test]
async fn sqlite_file_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let db = TempDb::new("private");
    let store = SqliteStore::open(&db.path).unwrap();
    store
        .put_secret(&alice(), "k", &Secret::from("v"), T0)
        .await
        .unwrap();
    let mode = std::fs::metadata(&db.path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
}

/// Issue 21, hole 3: a store file someone created in advance, open to others (`0666`, as
/// another local user would leave it in a shared folder), is refused — it is not used, and no
/// secret reaches it. So is a `-wal` beside a private database, and an open key file.
#[cfg(unix)]
#[test]
fn sqlite_refuses_files_others_may_read_or_write() {
    use std::os::unix::fs::PermissionsExt;
    let open_to_all = |path: &std::path::Path| {
        std::fs::write(path, b"").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666)).unwrap();
    };
    let db = TempDb::new("pre-created");
    open_to_all(&db.path);
    match SqliteStore::open(&db.path) {
        Err(e @ StoreError::NotPrivate { .. }) => {
            let message = e.to_string();
            assert!(
                message.contains(&db.path.display().to_string()),
                "{message}"
            );
            assert!(message.contains("other users"), "{message}");
        }
        other => panic!("expected NotPrivate, got {other:?}"),
    }
    assert_eq!(std::fs::read(&db.path).unwrap(), b"", "left as it was");

    // The database is private, but its write-ahead log was made by someone else.
    let db = TempDb::new("pre-created-wal");
    let mut wal = db.path.clone().into_os_string();
    wal.push("-wal");
    open_to_all(std::path::Path::new(&wal));
    assert!(matches!(
        SqliteStore::open(&db.path),
        Err(StoreError::NotPrivate { .. })
    ));

    // A key file others may read.
    let db = TempDb::new("open-key");
    let key = SqliteStore::key_path(&db.path);
    std::fs::write(&key, "00".repeat(32)).unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(matches!(
        SqliteStore::open(&db.path),
        Err(StoreError::NotPrivate { .. })
    ));
}

/// Issue 21, hole 3: a secret is sealed at rest — its text is in none of the store's files (the
/// database, its `-wal`, its `-shm`) — and still reads back; the key is a file of its own
/// (`0600`), and a store opened with another key cannot read it.
#[tokio::test]
async fn sqlite_seals_secrets_at_rest_with_a_key_kept_apart() {
    let db = TempDb::new("sealed");
    let store = SqliteStore::open(&db.path).unwrap();
    let secret = "sk-live-PLAINTEXT-0123456789";
    store
        .put_secret(&alice(), "openai", &Secret::from(secret), T0)
        .await
        .unwrap();
    let flow = flow_at(alice(), T0);
    store.insert_flow(&flow).await.unwrap();
    assert!(
        store
            .complete_with_secret(&flow.id, &alice(), "github", &Secret::from(secret), T0)
            .await
            .unwrap()
    );
    for suffix in ["", "-wal", "-shm"] {
        let mut path = db.path.clone().into_os_string();
        path.push(suffix);
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the secret is in {path:?} in plain text"
        );
    }
    for name in ["openai", "github"] {
        let read = store.secret(&alice(), name).await.unwrap().unwrap();
        assert_eq!(read.expose_str(), Some(secret));
    }
    drop(store);
    let store = SqliteStore::open(&db.path).unwrap();
    let read = store.secret(&alice(), "openai").await.unwrap().unwrap();
    assert_eq!(read.expose_str(), Some(secret), "after a restart");
    drop(store);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let key = SqliteStore::key_path(&db.path);
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    // Another key reads no secret (an error, never garbage).
    let other = SqliteStore::open_with_key(&db.path, StoreKey::random()).unwrap();
    assert!(matches!(
        other.secret(&alice(), "openai").await,
        Err(StoreError::Corrupt(_))
    ));
}

/// A task's record (a person's answer may be in its result) is sealed like a secret: not in the
/// file in plain text, read back after a restart, and not by another key.
#[tokio::test]
async fn sqlite_seals_tasks_at_rest() {
    let db = TempDb::new("sealed-task");
    let store = SqliteStore::open(&db.path).unwrap();
    let answer = "the-approvers-PLAINTEXT-answer";
    let mut result = serde_json::Map::new();
    result.insert("content".into(), json!([{"type": "text", "text": answer}]));
    let ended = stored_task("t-9", TaskPayload::Completed { result }, T0, None);
    store.put_task(&ended).await.unwrap();
    for suffix in ["", "-wal", "-shm"] {
        let mut path = db.path.clone().into_os_string();
        path.push(suffix);
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !bytes.windows(answer.len()).any(|w| w == answer.as_bytes()),
            "the task's result is in {path:?} in plain text"
        );
    }
    drop(store);
    let store = SqliteStore::open(&db.path).unwrap();
    assert_eq!(store.task("t-9").await.unwrap(), Some(ended));
    drop(store);
    let other = SqliteStore::open_with_key(&db.path, StoreKey::random()).unwrap();
    assert!(matches!(
        other.task("t-9").await,
        Err(StoreError::Corrupt(_))
    ));
}

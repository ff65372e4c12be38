//! [`MemoryStore`]: flows and secrets in the process's memory.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use super::{
    Flow, FlowId, FlowStatus, FlowStore, Secret, StoreError, StoreFuture, StoredTask, UserId,
    check_task_times, check_times, ready,
};

/// A [`FlowStore`] in memory: the same behaviour as [`SqliteStore`](super::SqliteStore), nothing
/// survives the process. For tests, and for servers whose flows may be lost on a restart. It
/// keeps nothing on disk, so it seals nothing.
#[derive(Default)]
pub struct MemoryStore {
    state: Mutex<MemoryState>,
}

#[derive(Default)]
struct MemoryState {
    flows: HashMap<FlowId, MemoryFlow>,
    /// `lookup` key → the flow that has it.
    lookups: HashMap<String, FlowId>,
    secrets: HashMap<(UserId, String), Secret>,
    tasks: HashMap<String, StoredTask>,
}

struct MemoryFlow {
    flow: Flow,
    /// When it left `Pending` (for [`FlowStore::expire`]).
    finished_at_ms: Option<u64>,
    /// The token of the last take of its outcome ([`FlowStore::claim`]).
    claim: Option<String>,
}

impl MemoryStore {
    fn state(&self) -> MutexGuard<'_, MemoryState> {
        // Every change below is complete before anything can panic, so a poisoned lock still
        // guards consistent data.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("MemoryStore")
            .field("flows", &state.flows.len())
            .field("secrets", &state.secrets.len())
            .field("tasks", &state.tasks.len())
            .finish()
    }
}

/// The same operations on the state, under the store's lock.
impl MemoryState {
    fn insert_flow(&mut self, flow: &Flow) -> Result<(), StoreError> {
        check_times(flow)?;
        if self.flows.contains_key(&flow.id) {
            return Err(StoreError::DuplicateId(flow.id.clone()));
        }
        if let Some(lookup) = &flow.lookup {
            if self.lookups.contains_key(lookup) {
                return Err(StoreError::DuplicateLookup);
            }
            self.lookups.insert(lookup.clone(), flow.id.clone());
        }
        let finished_at_ms = flow.status.is_finished().then_some(flow.created_at_ms);
        self.flows.insert(
            flow.id.clone(),
            MemoryFlow {
                flow: flow.clone(),
                finished_at_ms,
                claim: None,
            },
        );
        Ok(())
    }

    fn flow(&self, id: &FlowId) -> Result<Option<Flow>, StoreError> {
        Ok(self.flows.get(id).map(|f| f.flow.clone()))
    }

    fn flow_by_lookup(&self, lookup: &str) -> Result<Option<Flow>, StoreError> {
        Ok(self
            .lookups
            .get(lookup)
            .and_then(|id| self.flows.get(id))
            .map(|f| f.flow.clone()))
    }

    fn transition(
        &mut self,
        id: &FlowId,
        from: &FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        let Some(stored) = self.flows.get_mut(id) else {
            return Ok(false);
        };
        if !stored.flow.status.same_variant(from)
            || (to == FlowStatus::Completed && stored.flow.is_expired(now_ms))
        {
            return Ok(false);
        }
        stored.finished_at_ms = to.is_finished().then_some(now_ms);
        stored.flow.status = to;
        Ok(true)
    }

    fn claim(&mut self, id: &FlowId, from: Option<&str>, to: &str) -> Result<bool, StoreError> {
        let Some(stored) = self.flows.get_mut(id) else {
            return Ok(false);
        };
        if stored.flow.status != FlowStatus::Completed || stored.claim.as_deref() != from {
            return Ok(false);
        }
        stored.claim = Some(to.to_owned());
        Ok(true)
    }

    fn set_data(&mut self, id: &FlowId, data: Value) -> Result<bool, StoreError> {
        Ok(match self.flows.get_mut(id) {
            Some(stored) => {
                stored.flow.data = data;
                true
            }
            None => false,
        })
    }

    fn pending_flows_of(&self, user: &UserId, now_ms: u64) -> Result<Vec<Flow>, StoreError> {
        let mut flows: Vec<Flow> = self
            .flows
            .values()
            .map(|f| &f.flow)
            .filter(|f| &f.user == user && f.status == FlowStatus::Pending && !f.is_expired(now_ms))
            .cloned()
            .collect();
        flows.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
        Ok(flows)
    }

    fn expire(&mut self, now_ms: u64, keep_finished_ms: u64) -> Result<usize, StoreError> {
        let mut changed = 0;
        if let Some(cutoff) = now_ms.checked_sub(keep_finished_ms) {
            let old: Vec<FlowId> = self
                .flows
                .iter()
                .filter(|(_, f)| f.finished_at_ms.is_some_and(|at| at <= cutoff))
                .map(|(id, _)| id.clone())
                .collect();
            for id in old {
                if let Some(removed) = self.flows.remove(&id) {
                    if let Some(lookup) = removed.flow.lookup {
                        self.lookups.remove(&lookup);
                    }
                    changed += 1;
                }
            }
        }
        for stored in self.flows.values_mut() {
            if stored.flow.status == FlowStatus::Pending && stored.flow.is_expired(now_ms) {
                stored.flow.status = FlowStatus::Expired;
                stored.finished_at_ms = Some(now_ms);
                changed += 1;
            }
        }
        let before = self.tasks.len();
        self.tasks
            .retain(|_, t| t.expires_at_ms.is_none_or(|at| at > now_ms));
        changed += before - self.tasks.len();
        Ok(changed)
    }

    fn put_task(&mut self, task: &StoredTask) -> Result<(), StoreError> {
        check_task_times(task)?;
        self.tasks.insert(task.id().to_owned(), task.clone());
        Ok(())
    }

    fn put_secret(
        &mut self,
        user: &UserId,
        name: &str,
        secret: &Secret,
        _now_ms: u64,
    ) -> Result<(), StoreError> {
        self.secrets
            .insert((user.clone(), name.to_owned()), secret.clone());
        Ok(())
    }

    fn secret(&self, user: &UserId, name: &str) -> Result<Option<Secret>, StoreError> {
        Ok(self.secrets.get(&(user.clone(), name.to_owned())).cloned())
    }

    fn delete_secret(&mut self, user: &UserId, name: &str) -> Result<bool, StoreError> {
        Ok(self
            .secrets
            .remove(&(user.clone(), name.to_owned()))
            .is_some())
    }
}

impl FlowStore for MemoryStore {
    fn put_task<'a>(&'a self, task: &'a StoredTask) -> StoreFuture<'a, ()> {
        ready(self.state().put_task(task))
    }

    fn task<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<StoredTask>> {
        ready(Ok(self.state().tasks.get(id).cloned()))
    }

    fn insert_flow<'a>(&'a self, flow: &'a Flow) -> StoreFuture<'a, ()> {
        ready(self.state().insert_flow(flow))
    }

    fn flow<'a>(&'a self, id: &'a FlowId) -> StoreFuture<'a, Option<Flow>> {
        ready(self.state().flow(id))
    }

    fn flow_by_lookup<'a>(&'a self, lookup: &'a str) -> StoreFuture<'a, Option<Flow>> {
        ready(self.state().flow_by_lookup(lookup))
    }

    fn transition<'a>(
        &'a self,
        id: &'a FlowId,
        from: &'a FlowStatus,
        to: FlowStatus,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        ready(self.state().transition(id, from, to, now_ms))
    }

    fn claim<'a>(
        &'a self,
        id: &'a FlowId,
        from: Option<&'a str>,
        to: &'a str,
    ) -> StoreFuture<'a, bool> {
        ready(self.state().claim(id, from, to))
    }

    fn set_data<'a>(&'a self, id: &'a FlowId, data: Value) -> StoreFuture<'a, bool> {
        ready(self.state().set_data(id, data))
    }

    fn pending_flows_of<'a>(&'a self, user: &'a UserId, now_ms: u64) -> StoreFuture<'a, Vec<Flow>> {
        ready(self.state().pending_flows_of(user, now_ms))
    }

    fn expire(&self, now_ms: u64, keep_finished_ms: u64) -> StoreFuture<'_, usize> {
        ready(self.state().expire(now_ms, keep_finished_ms))
    }

    fn put_secret<'a>(
        &'a self,
        user: &'a UserId,
        name: &'a str,
        secret: &'a Secret,
        now_ms: u64,
    ) -> StoreFuture<'a, ()> {
        ready(self.state().put_secret(user, name, secret, now_ms))
    }

    fn secret<'a>(&'a self, user: &'a UserId, name: &'a str) -> StoreFuture<'a, Option<Secret>> {
        ready(self.state().secret(user, name))
    }

    fn delete_secret<'a>(&'a self, user: &'a UserId, name: &'a str) -> StoreFuture<'a, bool> {
        ready(self.state().delete_secret(user, name))
    }

    fn complete_with_secret<'a>(
        &'a self,
        id: &'a FlowId,
        user: &'a UserId,
        name: &'a str,
        secret: &'a Secret,
        now_ms: u64,
    ) -> StoreFuture<'a, bool> {
        // Both under one lock: nobody sees the flow completed without its secret.
        let mut state = self.state();
        let completed = state.transition(id, &FlowStatus::Pending, FlowStatus::Completed, now_ms);
        let result = match completed {
            Ok(true) => state.put_secret(user, name, secret, now_ms).map(|()| true),
            other => other,
        };
        ready(result)
    }
}

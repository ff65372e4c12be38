//! JSON-RPC error codes the engine answers with.

/// Invalid params: undeclared mode, schema outside the subset, oversized request.
pub const INVALID_PARAMS: i32 = -32602;
/// Implementation-defined server error, used for "rate limited".
pub const RATE_LIMITED: i32 = -32000;
/// The person declined a sampling request (the spec's "User rejected sampling request").
pub const USER_REJECTED: i32 = -1;
/// Internal error: a driver bug such as a reused request id.
pub const INTERNAL_ERROR: i32 = -32603;

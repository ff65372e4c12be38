//! The keyboard between prompts: single letters read without waiting, while the terminal waits
//! on something else.

use std::time::Duration;

/// How often the keyboard is looked at while the terminal waits on something else: links the
/// host waits on, or a question the browser has (`handoff.rs`).
pub(crate) const KEY_POLL: Duration = Duration::from_millis(100);

/// A letter the person typed, if any, without waiting. The terminal stays in its normal (line)
/// mode: letters arrive once Enter is pressed, and they are echoed as typed.
pub(crate) fn typed_letter() -> Option<char> {
    use crossterm::event::{Event, KeyCode, KeyEventKind, poll, read};
    while poll(Duration::ZERO).unwrap_or(false) {
        match read() {
            Ok(Event::Key(key)) if key.kind == KeyEventKind::Press => {
                if let KeyCode::Char(c) = key.code {
                    return Some(c.to_ascii_lowercase());
                }
            }
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Whether the person pressed Enter since the last look, without waiting; whatever they typed
/// before it on the line is read with it (nothing of the line is left for the next prompt).
pub(crate) fn enter_pressed() -> bool {
    use crossterm::event::{Event, KeyCode, KeyEventKind, poll, read};
    let mut entered = false;
    while poll(Duration::ZERO).unwrap_or(false) {
        match read() {
            Ok(Event::Key(key))
                if key.kind == KeyEventKind::Press && key.code == KeyCode::Enter =>
            {
                entered = true;
            }
            Ok(_) => {}
            Err(_) => return entered,
        }
    }
    entered
}

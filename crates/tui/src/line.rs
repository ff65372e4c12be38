//! A one-line text prompt of our own, for every field a person types into (text, numbers, an
//! optional yes/no, a tool's JSON arguments): `inquire` 0.9's text prompts take no key bindings
//! and turn Ctrl-W and Ctrl-U into the letters `w` and `u`.
//!
//! It looks and behaves as inquire's `Text` does — `? Label value`, the help line in brackets
//! below, a refused value's message above (`# must be …`) until the next Enter, the answer
//! shown as `> Label answer` once given, `<canceled>` after Esc — and edits as a shell does:
//! Ctrl-W deletes the word before the cursor, Ctrl-U everything before it (the whole field while
//! typing at its end), Ctrl-K everything after it, Ctrl-A / Ctrl-E (Home / End) jump to its
//! ends, Ctrl-← / Ctrl-→ (Alt-B / Alt-F) move by words. Esc cancels (`OperationCanceled`),
//! Ctrl-C interrupts (`OperationInterrupted`), as with inquire, so the callers' handling of
//! both is unchanged. The frame is redrawn whole on every change, wrapped to the terminal's
//! width (resizes included), on stderr as inquire draws.
//!
//! What it does not do: lists, choices or yes/no confirmations (inquire draws those), several
//! lines, or history.

use std::io::Write;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, queue, terminal};
use inquire::InquireError;
use unicode_width::UnicodeWidthStr;

use crate::render::colour_enabled;

/// What a value's check says: `Err` with the message shown above the field.
pub(crate) type Check<'c> = Box<dyn Fn(&str) -> Result<(), String> + 'c>;

/// How an answer reads once given.
type Shown<'s> = Box<dyn Fn(&str) -> String + 's>;

/// A one-line text prompt (see the module documentation).
pub(crate) struct LinePrompt<'p> {
    message: &'p str,
    initial: &'p str,
    help: Option<&'p str>,
    placeholder: Option<&'p str>,
    check: Option<Check<'p>>,
    shown: Option<Shown<'p>>,
}

impl<'p> LinePrompt<'p> {
    /// A prompt labelled `message`.
    pub(crate) fn new(message: &'p str) -> Self {
        LinePrompt {
            message,
            initial: "",
            help: None,
            placeholder: None,
            check: None,
            shown: None,
        }
    }

    /// Starts with `value` in the field, the cursor at its end. Until the person edits it, the
    /// value is offered whole: Enter keeps it, and the first character typed (or pasted)
    /// replaces it; a key that edits (Backspace, the arrows, Ctrl-W…) keeps it to edit.
    pub(crate) fn with_initial_value(mut self, value: &'p str) -> Self {
        self.initial = value;
        self
    }

    /// The line shown in brackets below the field.
    pub(crate) fn with_help_message(mut self, help: &'p str) -> Self {
        self.help = Some(help).filter(|h| !h.is_empty());
        self
    }

    /// Shown dimmed while the field is empty.
    pub(crate) fn with_placeholder(mut self, placeholder: &'p str) -> Self {
        self.placeholder = Some(placeholder).filter(|p| !p.is_empty());
        self
    }

    /// Checked on Enter: a refused value stays, with the message above it.
    pub(crate) fn with_check(mut self, check: impl Fn(&str) -> Result<(), String> + 'p) -> Self {
        self.check = Some(Box::new(check));
        self
    }

    /// How the answer reads once given (the value as typed by default).
    pub(crate) fn with_shown_answer(mut self, shown: impl Fn(&str) -> String + 'p) -> Self {
        self.shown = Some(Box::new(shown));
        self
    }

    /// Asks, and returns what was typed once it passes the check.
    pub(crate) fn prompt(self) -> Result<String, InquireError> {
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err(InquireError::NotTTY);
        }
        let mut raw = RawMode::enter()?;
        let mut field = Field::new(self.initial);
        // The value given is offered whole until the person edits it.
        let mut offered = !self.initial.is_empty();
        let mut error: Option<String> = None;
        loop {
            raw.draw(&self.frame(&field, error.as_deref(), offered))?;
            let key = match event::read()? {
                Event::Key(key) if key.kind != KeyEventKind::Release => key,
                Event::Paste(text) => {
                    if std::mem::take(&mut offered) {
                        field = Field::new("");
                    }
                    for c in text.chars().filter(|c| *c != '\r') {
                        field.insert(if c == '\n' || c == '\t' { ' ' } else { c });
                    }
                    continue;
                }
                _ => continue, // A resize redraws.
            };
            if std::mem::take(&mut offered) && replaces(&key) {
                field = Field::new("");
            }
            match edit(&mut field, key) {
                Outcome::Edited => {}
                Outcome::Submit => {
                    let value = field.text();
                    match self.check.as_ref().map_or(Ok(()), |check| check(&value)) {
                        Ok(()) => {
                            let shown = self
                                .shown
                                .as_ref()
                                .map_or_else(|| value.clone(), |f| f(&value));
                            raw.draw(&Frame::answered(self.message, &shown))?;
                            raw.finish()?;
                            return Ok(value);
                        }
                        Err(message) => error = Some(message),
                    }
                }
                stop @ (Outcome::Cancel | Outcome::Interrupt) => {
                    raw.draw(&Frame::cancelled(self.message))?;
                    raw.finish()?;
                    return Err(if stop == Outcome::Interrupt {
                        InquireError::OperationInterrupted
                    } else {
                        InquireError::OperationCanceled
                    });
                }
            }
        }
    }

    fn frame(&self, field: &Field, error: Option<&str>, offered: bool) -> Frame {
        let colour = colour_enabled();
        let paint = |code: &str, text: &str| {
            if colour {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text.to_owned()
            }
        };
        // A message, a note and the help are broken between words to the terminal's width (the
        // last column left free), never mid-word by the terminal.
        let columns = crate::render::columns().saturating_sub(1);
        let wrapped = |code: &str, text: &str, lines: &mut Vec<Line>| {
            for piece in crate::render::wrap(text, columns) {
                lines.push(Line::new(paint(code, &piece), width(&piece)));
            }
        };
        let mut lines = Vec::new();
        if let Some(e) = error {
            wrapped("91", &format!("# {e}"), &mut lines);
        }
        let head = format!("? {} ", self.message);
        let head_width = width(&head);
        let value = field.text();
        let (shown, shown_width) = match (value.is_empty(), self.placeholder) {
            (true, Some(p)) => (paint("90", p), width(p)),
            _ => (value.clone(), width(&value)),
        };
        // At the end of the field the cursor needs a cell of its own (as inquire does).
        let room = usize::from(field.at_end());
        let cursor = lines.len();
        lines.push(Line::new(
            format!(
                "{} {} {shown}{}",
                paint("92", "?"),
                self.message,
                " ".repeat(room)
            ),
            head_width + shown_width + room,
        ));
        if offered {
            let note = format!("Enter keeps {}; typing replaces it.", self.initial);
            wrapped("96", &format!("[{note}]"), &mut lines);
        }
        if let Some(help) = self.help {
            wrapped("96", &format!("[{help}]"), &mut lines);
        }
        Frame {
            lines,
            cursor: Some((cursor, head_width + width(&field.before_cursor()))),
        }
    }
}

/// What a key did.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Edited,
    Submit,
    Cancel,
    Interrupt,
}

/// Whether `key` types a character (which replaces a value offered whole), rather than editing.
fn replaces(key: &KeyEvent) -> bool {
    let ctrl_or_alt = key
        .modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    matches!(key.code, KeyCode::Char(_)) && !ctrl_or_alt
}

/// Applies one key to the field.
fn edit(field: &mut Field, key: KeyEvent) -> Outcome {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    match key.code {
        KeyCode::Enter => return Outcome::Submit,
        KeyCode::Esc => return Outcome::Cancel,
        KeyCode::Char('c') if ctrl => return Outcome::Interrupt,
        KeyCode::Char('w') if ctrl => field.delete_word_before(),
        KeyCode::Backspace if ctrl || alt => field.delete_word_before(),
        KeyCode::Char('u') if ctrl => field.delete_before(),
        KeyCode::Char('k') if ctrl => field.delete_after(),
        KeyCode::Char('a') if ctrl => field.home(),
        KeyCode::Char('e') if ctrl => field.end(),
        KeyCode::Char('b') if ctrl => field.left(),
        KeyCode::Char('f') if ctrl => field.right(),
        KeyCode::Char('b') if alt => field.word_left(),
        KeyCode::Char('f') if alt => field.word_right(),
        KeyCode::Char('d') if alt => field.delete_word_after(),
        KeyCode::Char(_) if ctrl || alt => {} // Nothing else of these is text.
        KeyCode::Char(c) => field.insert(c),
        KeyCode::Backspace => field.backspace(),
        KeyCode::Delete if ctrl => field.delete_word_after(),
        KeyCode::Delete => field.delete(),
        KeyCode::Left if ctrl || alt => field.word_left(),
        KeyCode::Right if ctrl || alt => field.word_right(),
        KeyCode::Left => field.left(),
        KeyCode::Right => field.right(),
        KeyCode::Home => field.home(),
        KeyCode::End => field.end(),
        _ => {}
    }
    Outcome::Edited
}

/// The text being typed and the cursor in it (a character index).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    chars: Vec<char>,
    cursor: usize,
}

impl Field {
    fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        Field {
            cursor: chars.len(),
            chars,
        }
    }

    fn text(&self) -> String {
        self.chars.iter().collect()
    }

    fn before_cursor(&self) -> String {
        self.chars.iter().take(self.cursor).collect()
    }

    fn at_end(&self) -> bool {
        self.cursor == self.chars.len()
    }

    fn insert(&mut self, c: char) {
        self.chars.insert(self.cursor, c);
        self.cursor += 1;
    }

    fn backspace(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            self.chars.remove(self.cursor);
        }
    }

    fn delete(&mut self) {
        if self.cursor < self.chars.len() {
            self.chars.remove(self.cursor);
        }
    }

    fn left(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }

    fn right(&mut self) {
        self.cursor = (self.cursor + 1).min(self.chars.len());
    }

    fn home(&mut self) {
        self.cursor = 0;
    }

    fn end(&mut self) {
        self.cursor = self.chars.len();
    }

    /// Where the word before the cursor starts: spaces before the cursor, then the word (a
    /// shell's Ctrl-W: words end at whitespace).
    fn word_start(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && self.chars.get(at - 1).is_some_and(|c| c.is_whitespace()) {
            at -= 1;
        }
        while at > 0 && self.chars.get(at - 1).is_some_and(|c| !c.is_whitespace()) {
            at -= 1;
        }
        at
    }

    /// Where the word after the cursor ends.
    fn word_end(&self) -> usize {
        let mut at = self.cursor;
        let len = self.chars.len();
        while at < len && self.chars.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        while at < len && self.chars.get(at).is_some_and(|c| !c.is_whitespace()) {
            at += 1;
        }
        at
    }

    fn word_left(&mut self) {
        self.cursor = self.word_start();
    }

    fn word_right(&mut self) {
        self.cursor = self.word_end();
    }

    fn delete_word_before(&mut self) {
        let start = self.word_start();
        self.chars.drain(start..self.cursor);
        self.cursor = start;
    }

    fn delete_word_after(&mut self) {
        let end = self.word_end();
        self.chars.drain(self.cursor..end);
    }

    fn delete_before(&mut self) {
        self.chars.drain(..self.cursor);
        self.cursor = 0;
    }

    fn delete_after(&mut self) {
        self.chars.truncate(self.cursor);
    }
}

/// Columns `text` takes (no colour sequences in it).
fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// One line of a frame: what is written (colours included) and how many columns it takes.
struct Line {
    text: String,
    width: usize,
}

impl Line {
    fn new(text: String, width: usize) -> Self {
        Line { text, width }
    }
}

/// What the prompt shows: its lines, and where the cursor goes (line, column), if shown.
struct Frame {
    lines: Vec<Line>,
    cursor: Option<(usize, usize)>,
}

impl Frame {
    fn answered(message: &str, answer: &str) -> Frame {
        let colour = colour_enabled();
        let (prefix, answer_text) = if colour {
            (
                "\x1b[92m>\x1b[0m".to_owned(),
                format!("\x1b[96m{answer}\x1b[0m"),
            )
        } else {
            (">".to_owned(), answer.to_owned())
        };
        Frame {
            lines: vec![Line::new(
                format!("{prefix} {message} {answer_text}"),
                width(message) + width(answer) + 3,
            )],
            cursor: None,
        }
    }

    fn cancelled(message: &str) -> Frame {
        let cancelled = if colour_enabled() {
            "\x1b[31m<canceled>\x1b[0m"
        } else {
            "<canceled>"
        };
        let prefix = if colour_enabled() {
            "\x1b[92m?\x1b[0m"
        } else {
            "?"
        };
        Frame {
            lines: vec![Line::new(
                format!("{prefix} {message} {cancelled}"),
                width(message) + 13,
            )],
            cursor: None,
        }
    }
}

/// The terminal in raw mode while a prompt is drawn, back to normal when dropped.
struct RawMode {
    out: std::io::Stderr,
    /// Rows from the top of the last frame drawn to where the cursor was left.
    cursor_row: u16,
    done: bool,
}

impl RawMode {
    fn enter() -> Result<Self, InquireError> {
        terminal::enable_raw_mode()?;
        let mut out = std::io::stderr();
        let _ = crossterm::execute!(out, event::EnableBracketedPaste);
        Ok(RawMode {
            out,
            cursor_row: 0,
            done: false,
        })
    }

    /// Replaces the last frame with `frame`.
    fn draw(&mut self, frame: &Frame) -> std::io::Result<()> {
        let columns = terminal::size().map_or(80, |(c, _)| usize::from(c).max(1));
        let rows_of = |w: usize| w.max(1).div_ceil(columns);
        let out = &mut self.out;
        queue!(out, cursor::Hide)?;
        if self.cursor_row > 0 {
            queue!(out, cursor::MoveUp(self.cursor_row))?;
        }
        queue!(
            out,
            cursor::MoveToColumn(0),
            terminal::Clear(terminal::ClearType::FromCursorDown)
        )?;
        let mut top_of = Vec::with_capacity(frame.lines.len());
        let mut rows = 0;
        for (i, line) in frame.lines.iter().enumerate() {
            if i > 0 {
                out.write_all(b"\r\n")?;
            }
            top_of.push(rows);
            out.write_all(line.text.as_bytes())?;
            rows += rows_of(line.width);
        }
        let last = rows.saturating_sub(1);
        match frame.cursor {
            Some((line, column)) => {
                let row = top_of.get(line).copied().unwrap_or(0) + column / columns;
                let up = last.saturating_sub(row);
                if up > 0 {
                    queue!(out, cursor::MoveUp(u16::try_from(up).unwrap_or(u16::MAX)))?;
                }
                let column = u16::try_from(column % columns).unwrap_or(0);
                queue!(out, cursor::MoveToColumn(column), cursor::Show)?;
                self.cursor_row = u16::try_from(row).unwrap_or(u16::MAX);
            }
            None => {
                out.write_all(b"\r\n")?;
                queue!(out, cursor::Show)?;
                self.cursor_row = 0;
            }
        }
        out.flush()
    }

    /// Leaves the answered or cancelled frame in place and the terminal as it was.
    fn finish(&mut self) -> std::io::Result<()> {
        self.done = true;
        let _ = crossterm::execute!(self.out, event::DisableBracketedPaste);
        terminal::disable_raw_mode()
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if !self.done {
            let _ = crossterm::execute!(self.out, event::DisableBracketedPaste, cursor::Show);
            let _ = terminal::disable_raw_mode();
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_typed_character_replaces_an_offered_value_and_an_editing_key_keeps_it() {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let key = |code, modifiers| KeyEvent::new(code, modifiers);
        assert!(replaces(&key(KeyCode::Char('6'), KeyModifiers::NONE)));
        assert!(replaces(&key(KeyCode::Char('A'), KeyModifiers::SHIFT)));
        for keeps in [
            key(KeyCode::Backspace, KeyModifiers::NONE),
            key(KeyCode::Left, KeyModifiers::NONE),
            key(KeyCode::Char('w'), KeyModifiers::CONTROL),
            key(KeyCode::Char('b'), KeyModifiers::ALT),
            key(KeyCode::Enter, KeyModifiers::NONE),
        ] {
            assert!(!replaces(&keeps), "{keeps:?}");
        }
    }

    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    fn typed(field: &mut Field, text: &str) {
        for c in text.chars() {
            edit(field, key(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    #[test]
    fn ctrl_w_deletes_the_word_before_the_cursor_as_a_shell_does() {
        let mut f = Field::new("");
        typed(&mut f, "Ada  Lovelace Byron");
        edit(&mut f, key(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(f.text(), "Ada  Lovelace ");
        edit(&mut f, key(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(f.text(), "Ada  ");
        // In the middle: only what is before the cursor goes.
        let mut f = Field::new("one two three");
        f.cursor = 7; // after "two"
        edit(&mut f, key(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!((f.text().as_str(), f.cursor), ("one  three", 4));
        edit(&mut f, key(KeyCode::Backspace, KeyModifiers::ALT));
        assert_eq!((f.text().as_str(), f.cursor), (" three", 0));
    }

    #[test]
    fn ctrl_u_clears_before_the_cursor_and_ctrl_k_after_it() {
        let mut f = Field::new("ada@example.com");
        edit(&mut f, key(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!((f.text().as_str(), f.cursor), ("", 0));
        let mut f = Field::new("hello world");
        f.cursor = 5;
        edit(&mut f, key(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!((f.text().as_str(), f.cursor), (" world", 0));
        edit(&mut f, key(KeyCode::Char('k'), KeyModifiers::CONTROL));
        assert_eq!(f.text(), "");
    }

    #[test]
    fn control_keys_never_become_text_and_moves_stay_in_the_field() {
        let mut f = Field::new("añb");
        for (code, m) in [
            (KeyCode::Char('x'), KeyModifiers::CONTROL),
            (KeyCode::Char('x'), KeyModifiers::ALT),
            (KeyCode::Right, KeyModifiers::NONE),
        ] {
            assert_eq!(edit(&mut f, key(code, m)), Outcome::Edited);
        }
        assert_eq!((f.text().as_str(), f.cursor), ("añb", 3));
        edit(&mut f, key(KeyCode::Left, KeyModifiers::CONTROL));
        assert_eq!(f.cursor, 0);
        edit(&mut f, key(KeyCode::Left, KeyModifiers::NONE));
        edit(&mut f, key(KeyCode::Delete, KeyModifiers::NONE));
        assert_eq!(f.text(), "ñb");
        edit(&mut f, key(KeyCode::Char('e'), KeyModifiers::CONTROL));
        typed(&mut f, "!");
        assert_eq!(f.text(), "ñb!");
        assert_eq!(
            edit(&mut f, key(KeyCode::Esc, KeyModifiers::NONE)),
            Outcome::Cancel
        );
        assert_eq!(
            edit(&mut f, key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Outcome::Interrupt
        );
        assert_eq!(
            edit(&mut f, key(KeyCode::Enter, KeyModifiers::NONE)),
            Outcome::Submit
        );
    }
}

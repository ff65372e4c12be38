//! Everything the terminal surface writes outside of prompts: headers, notices, reviews and tool
//! results, plus the sanitising every peer-supplied string goes through before it reaches the
//! terminal.
//!
//! This is the one module that writes to stdout directly. The workspace forbids printing in
//! libraries (`clippy::print_stdout`) because a library must not scribble on its caller's
//! terminal; the terminal surface *is* the terminal, so it writes through a locked
//! [`std::io::Stdout`] handle here (no `print!` macros, so no lint to silence) and nowhere else.
//! Prompts themselves are drawn by `inquire`.
//!
//! What it deliberately does not do: interpret markup of any kind. A server's message, titles,
//! descriptions and tool output are shown as plain text; control characters (escape sequences
//! above all) and bidirectional overrides are replaced by visible stand-ins so a server cannot
//! move the cursor, recolour, hide text or fake a header.

use std::io::Write;

/// Makes a peer-supplied string safe to show on one line: every control character (including
/// newlines) and every bidirectional formatting character becomes a visible stand-in.
pub(crate) fn plain_line(s: &str) -> String {
    s.chars().map(|c| stand_in(c, false)).collect()
}

/// Makes a peer-supplied string safe to show as a block: like [`plain_line`], but newlines are
/// kept and tabs become spaces.
pub(crate) fn plain_block(s: &str) -> String {
    let s = s.replace("\r\n", "\n");
    s.chars()
        .flat_map(|c| {
            if c == '\t' {
                "    ".chars().collect::<Vec<_>>()
            } else {
                vec![stand_in(c, true)]
            }
        })
        .collect()
}

fn stand_in(c: char, keep_newline: bool) -> char {
    match c {
        '\n' if keep_newline => '\n',
        '\n' => '⏎',
        // C0 controls → the Unicode "control pictures" (␛ for ESC, ␍ for CR …).
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{fffd}'),
        '\u{7f}' => '␡',
        // C1 controls (CSI, OSC … as single code points), bidi embeddings, overrides and
        // isolates, and the line/paragraph separators.
        '\u{80}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{061c}'
        | '\u{2028}'
        | '\u{2029}' => '\u{fffd}',
        c => c,
    }
}

/// Text attributes, written only when the terminal takes them (not when `NO_COLOR` is set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Bold: the requesting server's name, headings.
    Strong,
    /// Dim: hints and secondary text.
    Dim,
    /// Red: errors.
    Error,
    /// Green: success.
    Ok,
    /// Yellow: notices.
    Warn,
}

pub(crate) fn colour_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Wraps already-sanitised `text` in `style`.
pub(crate) fn styled(style: Style, text: &str) -> String {
    if !colour_enabled() {
        return text.to_owned();
    }
    let code = match style {
        Style::Strong => "1",
        Style::Dim => "2",
        Style::Error => "1;31",
        Style::Ok => "32",
        Style::Warn => "33",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// The terminal, for everything that is not a prompt.
#[derive(Debug, Default)]
pub(crate) struct Screen;

impl Screen {
    /// Writes lines (already sanitised and styled) and flushes. A terminal that went away is not
    /// an error worth stopping for: the next prompt reports it.
    pub(crate) fn lines<I, S>(&self, lines: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut out = std::io::stdout().lock();
        let width = columns();
        for line in lines {
            // Broken between words to the terminal's width: the terminal itself would cut them
            // anywhere.
            for part in wrap(line.as_ref(), width.saturating_sub(1)) {
                let _ = writeln!(out, "{part}");
            }
        }
        let _ = out.flush();
    }

    /// Writes one line.
    pub(crate) fn line(&self, line: impl AsRef<str>) {
        self.lines([line]);
    }

    /// Writes an empty line.
    pub(crate) fn blank(&self) {
        self.line("");
    }

    /// Writes peer text as an indented block under a gutter, so it can never pass for one of our
    /// own headers or prompts; long lines are wrapped at word boundaries to the terminal's width.
    pub(crate) fn quoted(&self, text: &str) {
        let text = plain_block(text);
        // The gutter takes 4 columns, and the last column stays free: a line that fills it
        // leaves some terminals waiting to wrap, and the next line lands one row too low.
        let width = columns().saturating_sub(5);
        self.lines(
            text.lines()
                .flat_map(|l| wrap(l, width))
                .map(|l| format!("  │ {l}")),
        );
    }

    /// Writes an error line.
    pub(crate) fn error(&self, text: &str) {
        self.line(format!("{} {text}", styled(Style::Error, "✗")));
    }

    /// Writes a notice line.
    pub(crate) fn notice(&self, text: &str) {
        self.line(format!("{} {text}", styled(Style::Warn, "!")));
    }

    /// Writes a success line.
    pub(crate) fn ok(&self, text: &str) {
        self.line(format!("{} {text}", styled(Style::Ok, "✓")));
    }
}

/// The terminal's width in columns (80 when it cannot be told).
pub(crate) fn columns() -> usize {
    crossterm::terminal::size().map_or(80, |(c, _)| usize::from(c).max(20))
}

/// How many columns `text` takes on a terminal: wide characters (CJK, most emoji) two, marks
/// that combine with the one before none, colour sequences (`ESC [ … m`) none.
fn visible_len(text: &str) -> usize {
    let mut n = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        }
    }
    n
}

/// `text` in lines of at most `width` columns, broken between words (a word longer than a line
/// is cut); every line keeps the first one's indent. Colour sequences take no room.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    if visible_len(text) <= width {
        return vec![text.to_owned()];
    }
    let indent: String = text.chars().take_while(|c| *c == ' ').collect();
    let room = width.saturating_sub(indent.len()).max(8);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut taken = 0;
    for word in text.split_whitespace() {
        let mut word = word.to_owned();
        loop {
            let len = visible_len(&word);
            if taken + len + usize::from(taken > 0) <= room {
                if taken > 0 {
                    line.push(' ');
                    taken += 1;
                }
                line.push_str(&word);
                taken += len;
                break;
            }
            if taken > 0 {
                lines.push(format!("{indent}{}", std::mem::take(&mut line)));
                taken = 0;
                continue;
            }
            // A word longer than a line: cut it (by characters).
            let head: String = word.chars().take(room).collect();
            word = word.chars().skip(room).collect();
            lines.push(format!("{indent}{head}"));
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() {
        lines.push(format!("{indent}{line}"));
    }
    lines
}

/// `text` cut to at most `max` characters at a word boundary, with `…` when it was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let room = max.saturating_sub(1);
    let cut: String = text.chars().take(room).collect();
    let at_word = match cut.rfind(' ') {
        Some(space) if space > room / 2 => cut.get(..space).unwrap_or(&cut).trim_end().to_owned(),
        _ => cut,
    };
    format!("{at_word}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_columns_when_wrapping() {
        assert_eq!(visible_len("日本語"), 6);
        assert_eq!(
            visible_len("e\u{301}"),
            1,
            "a combining accent takes no column"
        );
        assert_eq!(visible_len("\x1b[1mbold\x1b[0m"), 4);
        for line in wrap(&"日本語のテキスト ".repeat(10), 30) {
            assert!(
                visible_len(&line) <= 30,
                "{line:?} is wider than 30 columns"
            );
        }
    }

    #[test]
    fn wrapping_breaks_between_words() {
        let lines = wrap("the quick brown fox jumps over the lazy dog", 16);
        assert_eq!(lines, ["the quick brown", "fox jumps over", "the lazy dog"]);
        assert!(lines.iter().all(|l| l.chars().count() <= 16));
        assert_eq!(
            wrap("   one two three four", 12),
            ["   one two", "   three", "   four"]
        );
        assert_eq!(
            wrap("\x1b[2mdim words here\x1b[0m", 10),
            ["\x1b[2mdim words", "here\x1b[0m"]
        );
        assert_eq!(wrap("short", 16), ["short"]);
        assert_eq!(
            wrap("abcdefghijklmnopqrstuvwxyz", 10),
            ["abcdefghij", "klmnopqrst", "uvwxyz"]
        );
        assert_eq!(
            shorten("Echoes back the input string", 20),
            "Echoes back the…"
        );
        assert_eq!(shorten("short", 20), "short");
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(plain_line("a\x1b[2Jb"), "a␛[2Jb");
        assert_eq!(plain_line("x\ny\rz"), "x⏎y␍z");
        assert_eq!(plain_line("\u{202e}evil"), "\u{fffd}evil");
        assert_eq!(plain_line("\u{9b}31m"), "\u{fffd}31m");
    }

    #[test]
    fn blocks_keep_lines() {
        assert_eq!(plain_block("a\r\nb\tc\x07"), "a\nb    c␇");
    }
}

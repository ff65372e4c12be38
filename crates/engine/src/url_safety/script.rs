//! A small script classifier for host labels: enough to tell when a label mixes writing systems,
//! is written entirely in letters that pass for Latin ones, or holds a character names rarely
//! use. Not UTS #39, on purpose: a table of the scripts that matter for look-alike names, by
//! Unicode block, and the rules of Chromium's IDN display policy restated over it (mixing as
//! UTS #39's "highly restrictive" level with Latin kept apart from Cyrillic and Greek;
//! whole-script look-alikes allowed under a suffix of their own script; characters outside
//! those allowed in identifiers; a few patterns that hide or imitate).

use std::cmp::Ordering;
use std::fmt;

/// A writing system, as far as the look-alike checks need to tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Script {
    /// Latin.
    Latin,
    /// Greek.
    Greek,
    /// Cyrillic.
    Cyrillic,
    /// Armenian.
    Armenian,
    /// Hebrew.
    Hebrew,
    /// Arabic.
    Arabic,
    /// Devanagari.
    Devanagari,
    /// Bengali.
    Bengali,
    /// Tamil.
    Tamil,
    /// Thai.
    Thai,
    /// Georgian.
    Georgian,
    /// Ethiopic.
    Ethiopic,
    /// Cherokee.
    Cherokee,
    /// Hangul (Korean).
    Hangul,
    /// Hiragana (Japanese).
    Hiragana,
    /// Katakana (Japanese).
    Katakana,
    /// Bopomofo (Chinese phonetic).
    Bopomofo,
    /// Han (Chinese characters, kanji, hanja).
    Han,
    /// Any script this table does not name.
    Other,
}

impl Script {
    const ALL: [Script; 19] = [
        Script::Latin,
        Script::Greek,
        Script::Cyrillic,
        Script::Armenian,
        Script::Hebrew,
        Script::Arabic,
        Script::Devanagari,
        Script::Bengali,
        Script::Tamil,
        Script::Thai,
        Script::Georgian,
        Script::Ethiopic,
        Script::Cherokee,
        Script::Hangul,
        Script::Hiragana,
        Script::Katakana,
        Script::Bopomofo,
        Script::Han,
        Script::Other,
    ];

    /// The script of `c`, or `None` for characters every script shares (digits, the hyphen,
    /// combining marks, the prolonged sound mark).
    pub fn of(c: char) -> Option<Script> {
        if c.is_ascii() {
            return c.is_ascii_alphabetic().then_some(Script::Latin);
        }
        let cp = u32::from(c);
        if SHARED.iter().any(|&(lo, hi)| (lo..=hi).contains(&cp)) {
            return None;
        }
        let found = BLOCKS.binary_search_by(|&(lo, hi, _)| {
            if hi < cp {
                Ordering::Less
            } else if lo > cp {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
        Some(
            found
                .ok()
                .and_then(|i| BLOCKS.get(i))
                .map_or(Script::Other, |&(_, _, s)| s),
        )
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Script::Latin => "Latin",
            Script::Greek => "Greek",
            Script::Cyrillic => "Cyrillic",
            Script::Armenian => "Armenian",
            Script::Hebrew => "Hebrew",
            Script::Arabic => "Arabic",
            Script::Devanagari => "Devanagari",
            Script::Bengali => "Bengali",
            Script::Tamil => "Tamil",
            Script::Thai => "Thai",
            Script::Georgian => "Georgian",
            Script::Ethiopic => "Ethiopic",
            Script::Cherokee => "Cherokee",
            Script::Hangul => "Hangul",
            Script::Hiragana => "Hiragana",
            Script::Katakana => "Katakana",
            Script::Bopomofo => "Bopomofo",
            Script::Han => "Han",
            Script::Other => "another script",
        })
    }
}

/// Characters of no one script (combining marks, joiners, the prolonged sound mark, the middle
/// dot of Catalan).
const SHARED: &[(u32, u32)] = &[
    (0x00B7, 0x00B7),
    (0x0300, 0x036F),
    (0x1AB0, 0x1AFF),
    (0x1DC0, 0x1DFF),
    (0x200C, 0x200D),
    (0x20D0, 0x20FF),
    (0x3099, 0x309C),
    (0x30FC, 0x30FC),
    (0xFE20, 0xFE2F),
];

/// Unicode blocks by script, sorted and disjoint (binary-searched).
const BLOCKS: &[(u32, u32, Script)] = &[
    (0x00AA, 0x00AA, Script::Latin),
    (0x00BA, 0x00BA, Script::Latin),
    (0x00C0, 0x00D6, Script::Latin),
    (0x00D8, 0x00F6, Script::Latin),
    (0x00F8, 0x02AF, Script::Latin),
    (0x0370, 0x03FF, Script::Greek),
    (0x0400, 0x052F, Script::Cyrillic),
    (0x0530, 0x058F, Script::Armenian),
    (0x0590, 0x05FF, Script::Hebrew),
    (0x0600, 0x06FF, Script::Arabic),
    (0x0750, 0x077F, Script::Arabic),
    (0x0870, 0x08FF, Script::Arabic),
    (0x0900, 0x097F, Script::Devanagari),
    (0x0980, 0x09FF, Script::Bengali),
    (0x0B80, 0x0BFF, Script::Tamil),
    (0x0E00, 0x0E7F, Script::Thai),
    (0x10A0, 0x10FF, Script::Georgian),
    (0x1100, 0x11FF, Script::Hangul),
    (0x1200, 0x139F, Script::Ethiopic),
    (0x13A0, 0x13FF, Script::Cherokee),
    (0x1C80, 0x1C8F, Script::Cyrillic),
    (0x1C90, 0x1CBF, Script::Georgian),
    (0x1D00, 0x1DBF, Script::Latin),
    (0x1E00, 0x1EFF, Script::Latin),
    (0x1F00, 0x1FFF, Script::Greek),
    (0x2C60, 0x2C7F, Script::Latin),
    (0x2D00, 0x2D2F, Script::Georgian),
    (0x2DE0, 0x2DFF, Script::Cyrillic),
    (0x2E80, 0x2FDF, Script::Han),
    (0x3005, 0x3007, Script::Han),
    (0x3021, 0x3029, Script::Han),
    (0x3040, 0x309F, Script::Hiragana),
    (0x30A0, 0x30FF, Script::Katakana),
    (0x3100, 0x312F, Script::Bopomofo),
    (0x3130, 0x318F, Script::Hangul),
    (0x31A0, 0x31BF, Script::Bopomofo),
    (0x31F0, 0x31FF, Script::Katakana),
    (0x3400, 0x4DBF, Script::Han),
    (0x4E00, 0x9FFF, Script::Han),
    (0xA640, 0xA69F, Script::Cyrillic),
    (0xA720, 0xA7FF, Script::Latin),
    (0xAB30, 0xAB6F, Script::Latin),
    (0xAB70, 0xABBF, Script::Cherokee),
    (0xAC00, 0xD7AF, Script::Hangul),
    (0xF900, 0xFAFF, Script::Han),
    (0xFB00, 0xFB06, Script::Latin),
    (0xFB13, 0xFB17, Script::Armenian),
    (0xFB1D, 0xFB4F, Script::Hebrew),
    (0xFB50, 0xFDFF, Script::Arabic),
    (0xFE70, 0xFEFF, Script::Arabic),
    (0xFF21, 0xFF3A, Script::Latin),
    (0xFF41, 0xFF5A, Script::Latin),
    (0xFF66, 0xFF9F, Script::Katakana),
    (0x20000, 0x323AF, Script::Han),
];

/// Combinations that are one writing system in practice (UTS #39's "highly restrictive"
/// sets): Japanese, Chinese with Bopomofo, Korean, each with Latin.
const NATURAL_MIXES: [u32; 3] = [
    bits(&[
        Script::Latin,
        Script::Han,
        Script::Hiragana,
        Script::Katakana,
    ]),
    bits(&[Script::Latin, Script::Han, Script::Bopomofo]),
    bits(&[Script::Latin, Script::Han, Script::Hangul]),
];

const fn bits(scripts: &[Script]) -> u32 {
    match scripts {
        [first, rest @ ..] => (1 << (*first as u32)) | bits(rest),
        [] => 0,
    }
}

/// Lower-case letters (IDNA has already folded case) that pass for Latin ones, by script.
const LOOKALIKES: &[(Script, &[char])] = &[
    (
        Script::Cyrillic,
        &[
            'а', 'с', 'ԁ', 'е', 'һ', 'і', 'ј', 'ӏ', 'о', 'р', 'ԛ', 'ѕ', 'у', 'х', 'ԝ', 'ү', 'ъ',
            'ь', 'ҽ', 'п', 'г', 'ѵ', 'ѡ',
        ],
    ),
    (
        Script::Greek,
        &['α', 'ο', 'ν', 'ι', 'κ', 'ρ', 'υ', 'χ', 'γ', 'ϲ', 'ϳ'],
    ),
    (Script::Armenian, &['օ', 'ս', 'ո', 'հ', 'ց', 'զ']),
];

/// The scripts of one label, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Scripts(u32);

impl Scripts {
    /// The scripts of the letters in `label`.
    pub(crate) fn of(label: &str) -> Scripts {
        Scripts(
            label
                .chars()
                .filter_map(Script::of)
                .fold(0, |acc, s| acc | s.bit()),
        )
    }

    /// More than one script, and not one of the natural combinations.
    pub(crate) fn is_mixed(self) -> bool {
        self.0.count_ones() > 1 && !NATURAL_MIXES.iter().any(|&m| self.0 & !m == 0)
    }

    /// [`is_mixed`](Scripts::is_mixed) for these scripts of `label`, where Latin mixes with
    /// Chinese, Japanese or Korean only in the ASCII range (`bücher例` is mixed, `ソニーsony` is
    /// not).
    pub(crate) fn is_mixed_in(self, label: &str) -> bool {
        self.is_mixed()
            || (self.0.count_ones() > 1
                && self.0 & Script::Latin.bit() != 0
                && label
                    .chars()
                    .any(|c| !c.is_ascii() && Script::of(c) == Some(Script::Latin)))
    }

    /// The scripts, in a fixed order.
    pub(crate) fn list(self) -> Vec<Script> {
        Script::ALL
            .into_iter()
            .filter(|s| self.0 & s.bit() != 0)
            .collect()
    }

    /// The script, when there is exactly one.
    pub(crate) fn single(self) -> Option<Script> {
        (self.0.count_ones() == 1)
            .then(|| Script::ALL.into_iter().find(|s| self.0 & s.bit() != 0))
            .flatten()
    }
}

/// The script whose letters pass for Latin, when every letter of `label` (at least one) is such
/// a letter of one non-Latin script.
pub(crate) fn lookalike_script(label: &str, scripts: Scripts) -> Option<Script> {
    let script = scripts.single()?;
    let (_, letters) = LOOKALIKES.iter().find(|(s, _)| *s == script)?;
    label
        .chars()
        .filter(|&c| Script::of(c).is_some())
        .all(|c| letters.contains(&c))
        .then_some(script)
}

/// Whether `suffix` (the last label, in Unicode) is written in `script` or is the country code
/// of a country that writes it, where a name in `script` letters is expected.
pub(crate) fn suffix_of_script(script: Script, suffix: &str) -> bool {
    let countries: &[&str] = match script {
        Script::Cyrillic => &[
            "bg", "by", "kg", "kz", "mk", "mn", "rs", "ru", "su", "tj", "ua", "uz",
        ],
        Script::Greek => &["cy", "gr"],
        Script::Armenian => &["am"],
        _ => &[],
    };
    countries.contains(&suffix) || Scripts::of(suffix).single() == Some(script)
}

/// Characters identifiers should not use (outside UTS #39's "allowed" set, or kept out by
/// Chromium), which pass for common letters or punctuation: Latin letters of phonetics and
/// rarely written languages (`ɡ`, small capitals, hooks and strokes), Pinyin tone letters,
/// polytonic Greek, old Cyrillic, hyphens and apostrophes that are letters. Sorted and disjoint
/// (binary-searched).
const UNUSUAL: &[(u32, u32)] = &[
    (0x0180, 0x019F),
    (0x01A2, 0x01AE),
    (0x01B1, 0x01DD),
    (0x01E4, 0x01E5),
    (0x01F1, 0x01F3),
    (0x01F6, 0x01F7),
    (0x021C, 0x021D),
    (0x0220, 0x0225),
    (0x0234, 0x0258),
    (0x025A, 0x0291),
    (0x0293, 0x02AF),
    (0x02BB, 0x02BC),
    (0x0338, 0x0338),
    (0x058A, 0x058A),
    (0x1C80, 0x1C8F),
    (0x1D00, 0x1DBF),
    (0x1E90, 0x1E9B),
    (0x1F00, 0x1FFF),
    (0x2010, 0x2010),
    (0x2019, 0x2019),
    (0x2027, 0x2027),
    (0x2C60, 0x2C7F),
    (0x30A0, 0x30A0),
    (0xA640, 0xA69F),
    (0xA720, 0xA7FF),
    (0xAB30, 0xAB6F),
];

/// Katakana that look like a slash or a stroke: fine among Japanese text, deceptive beside
/// Latin letters (`loginノexample`).
const SLASH_LIKE: [char; 4] = ['ノ', 'ソ', 'ゾ', 'ン'];

/// Marks that combine with the character before them.
fn is_combining(c: char) -> bool {
    matches!(u32::from(c),
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F
        | 0x3099..=0x309A)
}

fn is_japanese(c: char) -> bool {
    c == '\u{30FC}'
        || matches!(
            Script::of(c),
            Some(Script::Hiragana | Script::Katakana | Script::Han)
        )
}

/// The first character of `label` that names rarely use and that passes for another or hides,
/// described (`ɡ (U+0261)`, `◌́ (U+0301) twice in a row`); `None` when there is none. One pass.
pub(crate) fn unusual_characters(label: &str) -> Option<String> {
    let describe = |c: char| format!("{c} (U+{:04X})", u32::from(c));
    let mut prev: Option<char> = None;
    let mut chars = label.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let cp = u32::from(c);
        let listed = UNUSUAL
            .binary_search_by(|&(lo, hi)| {
                if hi < cp {
                    Ordering::Less
                } else if lo > cp {
                    Ordering::Greater
                } else {
                    Ordering::Equal
                }
            })
            .is_ok();
        let deceives = listed
            || matches!(c, '\u{200C}' | '\u{200D}')
            || (c == '\u{00B7}' && !(prev == Some('l') && next == Some('l')))
            || (SLASH_LIKE.contains(&c)
                && [prev, next].into_iter().flatten().any(|n| !is_japanese(n)));
        let found = if deceives {
            Some(describe(c))
        } else if is_combining(c) && prev == Some(c) {
            Some(format!("{} twice in a row", describe(c)))
        } else {
            None
        };
        if found.is_some() {
            return found;
        }
        prev = Some(c);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_sorted_and_disjoint_for_the_binary_search() {
        for pair in BLOCKS.windows(2) {
            let [(lo, hi, _), (next, _, _)] = pair else {
                unreachable!()
            };
            assert!(lo <= hi && hi < next, "{lo:#x}..={hi:#x} then {next:#x}");
        }
        for (lo, hi) in SHARED {
            assert!(lo <= hi);
        }
        for pair in UNUSUAL.windows(2) {
            let [(lo, hi), (next, _)] = pair else {
                unreachable!()
            };
            assert!(lo <= hi && hi < next, "{lo:#x}..={hi:#x} then {next:#x}");
        }
    }

    #[test]
    fn scripts_of_labels() {
        assert_eq!(Script::of('a'), Some(Script::Latin));
        assert_eq!(Script::of('7'), None);
        assert_eq!(Script::of('-'), None);
        assert_eq!(Script::of('ü'), Some(Script::Latin));
        assert_eq!(Script::of('а'), Some(Script::Cyrillic));
        assert_eq!(Script::of('ο'), Some(Script::Greek));
        assert_eq!(Script::of('え'), Some(Script::Hiragana));
        assert_eq!(Script::of('例'), Some(Script::Han));
        assert_eq!(Script::of('\u{0301}'), None);
        assert_eq!(Script::of('ᚠ'), Some(Script::Other));

        assert!(Scripts::of("аpple").is_mixed());
        assert_eq!(
            Scripts::of("аpple").list(),
            [Script::Latin, Script::Cyrillic]
        );
        assert!(Scripts::of("gοogle").is_mixed());
        assert!(!Scripts::of("例え").is_mixed());
        assert!(!Scripts::of("ソニーsony").is_mixed());
        assert!(!Scripts::of("한국어abc").is_mixed());
        assert!(Scripts::of("한국어え").is_mixed());
        assert!(!Scripts::of("bücher").is_mixed());
        assert!(!Scripts::of("bu\u{0308}cher").is_mixed());
    }

    #[test]
    fn lookalike_labels() {
        let lookalike = |label: &str| lookalike_script(label, Scripts::of(label));
        assert_eq!(lookalike("аррӏе"), Some(Script::Cyrillic));
        assert_eq!(lookalike("ехсе1"), Some(Script::Cyrillic));
        assert_eq!(lookalike("ορο"), Some(Script::Greek));
        assert_eq!(lookalike("пример"), None);
        assert_eq!(lookalike("ελληνικά"), None);
        assert_eq!(lookalike("123"), None);
        assert_eq!(lookalike("apple"), None);
        assert_eq!(lookalike("пор"), Some(Script::Cyrillic));
    }

    #[test]
    fn suffixes_of_a_script() {
        assert!(suffix_of_script(Script::Cyrillic, "рф"));
        assert!(suffix_of_script(Script::Cyrillic, "ru"));
        assert!(!suffix_of_script(Script::Cyrillic, "com"));
        assert!(!suffix_of_script(Script::Cyrillic, "ελ"));
        assert!(suffix_of_script(Script::Greek, "ελ"));
        assert!(!suffix_of_script(Script::Armenian, "ru"));
        assert!(suffix_of_script(Script::Armenian, "am"));
    }

    #[test]
    fn unusual_characters_in_labels() {
        assert_eq!(unusual_characters("bücher"), None);
        assert_eq!(unusual_characters("ıstanbul"), None);
        assert_eq!(unusual_characters("colꞏlegi"), Some("ꞏ (U+A78F)".into()));
        assert_eq!(unusual_characters("col·legi"), None);
        assert_eq!(unusual_characters("a·b"), Some("· (U+00B7)".into()));
        assert_eq!(unusual_characters("·"), Some("· (U+00B7)".into()));
        assert_eq!(unusual_characters("ɡoogle"), Some("ɡ (U+0261)".into()));
        assert_eq!(unusual_characters("ə"), None, "Azerbaijani");
        assert_eq!(unusual_characters("ș"), None, "Romanian");
        assert_eq!(unusual_characters("ソニー"), None);
        assert_eq!(unusual_characters("ノ"), None);
        assert_eq!(unusual_characters("aノb"), Some("ノ (U+30CE)".into()));
        assert_eq!(
            unusual_characters("x\u{0301}\u{0301}"),
            Some("\u{0301} (U+0301) twice in a row".into())
        );
        assert_eq!(unusual_characters("x\u{0301}\u{0300}"), None);
    }
}

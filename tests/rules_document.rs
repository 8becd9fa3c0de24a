//! The rules ship with the crate: every rule id that the code, the error messages, the compile
//! errors and the tests cite is defined in `RULES.md`, which is also the [`shaped::rules`]
//! module's documentation.

use std::collections::BTreeSet;
use std::path::Path;

/// The ids `RULES.md` defines: `**P2**` items and `| A1 |` table rows.
fn defined() -> BTreeSet<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("RULES.md"))
        .expect("RULES.md is in the repository");
    let mut ids = BTreeSet::new();
    for line in text.lines() {
        for part in line.split("**").skip(1).step_by(2) {
            if is_id(part) {
                ids.insert(part.to_string());
            }
        }
        if let Some(cell) = line.strip_prefix("| ").and_then(|l| l.split(" |").next()) {
            if is_id(cell) {
                ids.insert(cell.to_string());
            }
        }
    }
    ids
}

fn is_id(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(
        chars.next(),
        Some('N' | 'P' | 'D' | 'B' | 'O' | 'I' | 'A' | 'R' | 'M' | 'G' | 'S' | 'Q' | 'W' | 'C')
    ) && (2..=3).contains(&s.len())
        && chars.all(|c| c.is_ascii_digit())
}

/// Rule ids cited in prose: comments, doc comments, string literals, compile-error snapshots,
/// and test names (`fn p5_...`). Code such as typenum's `B1` or generic `A0` is not prose.
fn cited(path: &Path, text: &str) -> Vec<(String, usize)> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        // In a snapshot, the message lines (the listed impls are code).
        let prose = match ext {
            "md" => true,
            "stderr" => t.starts_with("error") || line.contains("rule"),
            _ => t.starts_with("//") || line.contains('"'),
        };
        if let Some(name) = t.strip_prefix("fn ") {
            let id: String = name.split('_').next().unwrap_or("").to_uppercase();
            if is_id(&id) {
                out.push((id, n + 1));
            }
        }
        if !prose {
            continue;
        }
        // Code spans (`[[T; N1]; N0]`) are code, not prose.
        let line: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let line = line.as_str();
        let bytes = line.as_bytes();
        for (i, w) in line.char_indices() {
            let before = i.checked_sub(1).map(|j| bytes[j] as char);
            // `DType::I8` is a path, not a citation.
            if !"NPDBOIARMGSQWC".contains(w)
                || before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            let digits: String = line[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let after = line[i + 1 + digits.len()..].chars().next();
            let ends_word = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '>'));
            let in_code = before == Some('<') || before == Some('"') && after == Some('"');
            if (1..=2).contains(&digits.len()) && ends_word && !in_code {
                out.push((format!("{w}{digits}"), n + 1));
            }
        }
    }
    out
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "stderr") {
            out.push(path);
        }
    }
}

#[test]
fn every_cited_rule_id_is_defined_in_rules_md() {
    let defined = defined();
    // Every section of the document is there.
    for family in [
        "N6", "P8", "D11", "B5", "O6", "I4", "A17", "R6", "M13", "G7", "S6", "Q19", "W2", "C3",
    ] {
        assert!(defined.contains(family), "RULES.md lacks {family}");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["src", "tests", "ui-tests", "examples"] {
        files(&root.join(dir), &mut paths);
    }
    paths.push(root.join("README.md"));
    let mut checked = 0;
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap();
        for (id, line) in cited(path, &text) {
            assert!(
                defined.contains(&id),
                "{}:{line} cites {id}, which RULES.md does not define",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} citations found");
}

#[test]
fn the_rules_module_documentation_is_the_rules_document() {
    let src =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules/mod.rs"))
            .unwrap();
    assert!(src.contains("#![doc = include_str!(\"../../RULES.md\")]"));
}

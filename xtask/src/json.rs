//! A small JSON value and its writer (the workspace has no serde_json; audit and diff need only output).

use std::fmt::Write;

/// A JSON value.
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, keys in the order given.
    Obj(Vec<(&'static str, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An array of strings.
    pub fn strs<S: AsRef<str>>(v: &[S]) -> Json {
        Json::Arr(v.iter().map(|s| Json::str(s.as_ref())).collect())
    }

    /// An integer from a size.
    pub fn num(n: usize) -> Json {
        Json::Int(n as i64)
    }

    /// An object `{name: count}` from pairs, as an array of `[name, count]` to keep the order.
    pub fn counts(v: &[(String, usize)]) -> Json {
        Json::Arr(v.iter().map(|(k, n)| Json::Arr(vec![Json::str(k), Json::num(*n)])).collect())
    }

    /// The compact text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, s: &mut String) {
        match self {
            Json::Null => s.push_str("null"),
            Json::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => {
                let _ = write!(s, "{n}");
            }
            Json::Str(t) => quote(t, s),
            Json::Arr(v) => {
                s.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    x.write(s);
                }
                s.push(']');
            }
            Json::Obj(v) => {
                s.push('{');
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        s.push(',');
                    }
                    quote(k, s);
                    s.push(':');
                    x.write(s);
                }
                s.push('}');
            }
        }
    }
}

fn quote(t: &str, s: &mut String) {
    s.push('"');
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn writes_escaped_compact_json() {
        let j = Json::Obj(vec![
            ("a", Json::Arr(vec![Json::num(1), Json::Null, Json::Bool(false)])),
            ("b", Json::str("q\"\\\n\u{1}")),
        ]);
        assert_eq!(j.text(), r#"{"a":[1,null,false],"b":"q\"\\\n\u0001"}"#);
    }
}

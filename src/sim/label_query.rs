//! A label query: a label selector written as text (`app=web,tier!=db`, `env in (a,b)`, `!canary`),
//! as kubectl's `--pod-selector` and `-l` take it. It is read as `labels.Parse` in apimachinery
//! reads it: a lexer of identifiers and operator symbols, then requirements joined by commas,
//! each key a qualified name and each value a label value.

use serde::Serialize;
use std::collections::BTreeMap;

/// The operator of one requirement (`selection.Operator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum QueryOperator {
    /// `key=value` and `key==value` (`Equals`, `DoubleEquals`) are `in` with one value.
    In,
    /// `key!=value` is `notin` with one value.
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

/// One requirement of a query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QueryRequirement {
    pub key: String,
    pub operator: QueryOperator,
    pub values: Vec<String>,
}

/// A parsed label query, with the text it was read from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LabelQuery {
    pub text: String,
    pub requirements: Vec<QueryRequirement>,
}

/// The lexer's tokens (`Token` in apimachinery's `labels` package).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    End,
    Identifier,
    In,
    NotIn,
    OpenPar,
    ClosedPar,
    Comma,
    Equals,
    DoubleEquals,
    NotEquals,
    DoesNotExist,
    GreaterThan,
    LessThan,
    Error,
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

fn symbol(text: &str) -> Option<Token> {
    Some(match text {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

/// `Lexer.Lex` over the whole text: whitespace skipped, the longest operator symbol taken, and
/// anything else read up to the next whitespace or symbol as an identifier or keyword.
fn lex(text: &str) -> Vec<(Token, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        let Some(first) = rest.chars().next() else {
            out.push((Token::End, ""));
            return out;
        };
        if is_special(first) {
            // The longest run of symbol characters that is a token, as `scanSpecialSymbol`
            // grows its buffer until it stops being one.
            let mut best: Option<(Token, usize)> = None;
            for (i, c) in rest.char_indices() {
                if !is_special(c) {
                    break;
                }
                let end = i + c.len_utf8();
                match symbol(&rest[..end]) {
                    Some(t) => best = Some((t, end)),
                    None if best.is_some() => break,
                    None => {}
                }
            }
            match best {
                Some((t, end)) => {
                    out.push((t, &rest[..end]));
                    rest = &rest[end..];
                }
                None => {
                    out.push((Token::Error, rest));
                    return out;
                }
            }
        } else {
            let end = rest
                .find(|c: char| is_special(c) || matches!(c, ' ' | '\t' | '\r' | '\n'))
                .unwrap_or(rest.len());
            let word = &rest[..end];
            let token = match word {
                "in" => Token::In,
                "notin" => Token::NotIn,
                _ => Token::Identifier,
            };
            out.push((token, word));
            rest = &rest[end..];
        }
    }
}

/// `Parser`: the tokens, read in the `Values` context (where `in` and `notin` are words) unless
/// an operator is expected.
struct Parser<'t> {
    tokens: Vec<(Token, &'t str)>,
    at: usize,
}

impl<'t> Parser<'t> {
    fn peek(&self) -> (Token, &'t str) {
        let (t, lit) = self
            .tokens
            .get(self.at)
            .copied()
            .unwrap_or((Token::End, ""));
        (Self::as_value(t), lit)
    }

    fn as_value(t: Token) -> Token {
        match t {
            Token::In | Token::NotIn => Token::Identifier,
            other => other,
        }
    }

    fn next_raw(&mut self) -> (Token, &'t str) {
        let item = self
            .tokens
            .get(self.at)
            .copied()
            .unwrap_or((Token::End, ""));
        self.at += 1;
        item
    }

    fn next(&mut self) -> (Token, &'t str) {
        let (t, lit) = self.next_raw();
        (Self::as_value(t), lit)
    }

    fn parse(&mut self) -> Option<Vec<QueryRequirement>> {
        let mut out = Vec::new();
        loop {
            match self.peek().0 {
                Token::Identifier | Token::DoesNotExist => {
                    out.push(self.requirement()?);
                    match self.next().0 {
                        Token::End => return Some(out),
                        Token::Comma
                            if matches!(self.peek().0, Token::Identifier | Token::DoesNotExist) => {
                        }
                        _ => return None,
                    }
                }
                Token::End => return Some(out),
                _ => return None,
            }
        }
    }

    fn requirement(&mut self) -> Option<QueryRequirement> {
        let (mut token, mut key) = self.next();
        let negated = token == Token::DoesNotExist;
        if negated {
            (token, key) = self.next();
        }
        if token != Token::Identifier || !super::validation::is_qualified_name(key).is_empty() {
            return None;
        }
        let unary = negated || matches!(self.peek().0, Token::End | Token::Comma);
        let (operator, values) = if unary {
            let op = if negated {
                QueryOperator::DoesNotExist
            } else {
                QueryOperator::Exists
            };
            (op, Vec::new())
        } else {
            match self.next_raw().0 {
                Token::In => (QueryOperator::In, self.value_set()?),
                Token::NotIn => (QueryOperator::NotIn, self.value_set()?),
                Token::Equals | Token::DoubleEquals => (QueryOperator::In, self.exact_value()?),
                Token::NotEquals => (QueryOperator::NotIn, self.exact_value()?),
                Token::GreaterThan => (QueryOperator::GreaterThan, self.exact_value()?),
                Token::LessThan => (QueryOperator::LessThan, self.exact_value()?),
                _ => return None,
            }
        };
        // `NewRequirement`: numbers for `>` and `<`, label values for the rest.
        let numeric = matches!(
            operator,
            QueryOperator::GreaterThan | QueryOperator::LessThan
        );
        if numeric && values.iter().any(|v| v.parse::<i64>().is_err()) {
            return None;
        }
        if values
            .iter()
            .any(|v| !super::validation::is_valid_label_value(v).is_empty())
        {
            return None;
        }
        Some(QueryRequirement {
            key: key.to_string(),
            operator,
            values,
        })
    }

    /// `parseValues`: `(a,b)`, where empty places (`()`, `(,a)`, `(a,)`) are the empty value.
    fn value_set(&mut self) -> Option<Vec<String>> {
        if self.next().0 != Token::OpenPar {
            return None;
        }
        let mut set = std::collections::BTreeSet::new();
        match self.peek().0 {
            Token::ClosedPar => {
                self.next();
                set.insert(String::new());
            }
            Token::Identifier | Token::Comma => {
                loop {
                    match self.next() {
                        (Token::Identifier, v) => {
                            set.insert(v.to_string());
                            match self.peek().0 {
                                Token::Comma => {}
                                Token::ClosedPar => break,
                                _ => return None,
                            }
                        }
                        (Token::Comma, _) => {
                            if set.is_empty() {
                                set.insert(String::new());
                            }
                            match self.peek().0 {
                                Token::ClosedPar => {
                                    set.insert(String::new());
                                    break;
                                }
                                Token::Comma => {
                                    self.next();
                                    set.insert(String::new());
                                }
                                _ => {}
                            }
                        }
                        _ => return None,
                    }
                }
                if self.next().0 != Token::ClosedPar {
                    return None;
                }
            }
            _ => return None,
        }
        Some(set.into_iter().collect())
    }

    /// `parseExactValue`: one word, or the empty value before a comma or the end.
    fn exact_value(&mut self) -> Option<Vec<String>> {
        if matches!(self.peek().0, Token::End | Token::Comma) {
            return Some(vec![String::new()]);
        }
        match self.next() {
            (Token::Identifier, v) => Some(vec![v.to_string()]),
            _ => None,
        }
    }
}

impl LabelQuery {
    /// Reads `text` as `labels.Parse` does; `None` when it is not a valid selector (kubectl
    /// says only that, whatever the fault).
    pub fn parse(text: &str) -> Option<LabelQuery> {
        let requirements = Parser {
            tokens: lex(text),
            at: 0,
        }
        .parse()?;
        Some(LabelQuery {
            text: text.to_string(),
            requirements,
        })
    }

    /// Whether `labels` meet every requirement (`Requirement.Matches`): `notin` and `!=` match
    /// a missing key, `>` and `<` need the label to be a base-10 integer.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| {
            let value = labels.get(&r.key);
            let number = |v: &String| v.parse::<i64>().ok();
            let bound = r.values.first().and_then(number);
            match r.operator {
                QueryOperator::In => value.is_some_and(|v| r.values.contains(v)),
                QueryOperator::NotIn => value.is_none_or(|v| !r.values.contains(v)),
                QueryOperator::Exists => value.is_some(),
                QueryOperator::DoesNotExist => value.is_none(),
                QueryOperator::GreaterThan => value
                    .and_then(number)
                    .zip(bound)
                    .is_some_and(|(v, b)| v > b),
                QueryOperator::LessThan => value
                    .and_then(number)
                    .zip(bound)
                    .is_some_and(|(v, b)| v < b),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// The forms `labels.Parse` takes, and what each matches.
    #[test]
    fn queries_match_as_label_selectors_do() {
        let web = labels(&[("app", "web"), ("tier", "fe"), ("rank", "3")]);
        let db = labels(&[("app", "db")]);
        let check = |text: &str, on_web: bool, on_db: bool| {
            let q = LabelQuery::parse(text).unwrap_or_else(|| panic!("{text:?} should parse"));
            assert_eq!(
                (q.matches(&web), q.matches(&db)),
                (on_web, on_db),
                "{text:?}"
            );
        };
        check("", true, true);
        check("app=web", true, false);
        check("app==web", true, false);
        check(" app = web , tier ", true, false);
        check("app!=web", false, true);
        check("tier!=fe", false, true);
        check("app in (web, db)", true, true);
        check("app in (web,)", true, false);
        check("tier notin (fe)", false, true);
        check("!tier", false, true);
        check("tier", true, false);
        check("rank>2", true, false);
        check("rank<3", false, false);
        check("in in (x)", false, false);
        check("app=", false, false);
        check("example.com/team", false, false);
    }

    /// What `labels.Parse` refuses.
    #[test]
    fn malformed_queries_are_refused() {
        for bad in [
            "app=web,",
            ",app",
            "app=web tier=fe",
            "app in web",
            "app in (web",
            "=web",
            "app=(web)",
            "rank>two",
            "rank>",
            "!app=web",
            "app=we b",
            "-app=web",
            "app=-web",
            "a/b/c",
            "app~web",
        ] {
            assert_eq!(LabelQuery::parse(bad), None, "{bad:?}");
        }
    }
}

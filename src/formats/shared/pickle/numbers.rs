//! Protocol 0 numbers as CPython's C unpickler (`Modules/_pickle.c`, the one `pickle.load`
//! and `torch.load` use) parses them, so that rtenx reads on exactly where the loader does and
//! stops exactly where it fails.
//!
//! Each argument is the line after the opcode without its newline; the C code sees it with
//! the newline and a NUL after, so parsing stops at an embedded NUL as C strings do.
//! - `INT`: `strtol(s, &end, 0)` (C's base 0: `0x` hex, a leading `0` octal, leading white
//!   space, a sign) accepted if it stops at the newline or a NUL and did not overflow;
//!   otherwise `PyLong_FromString(s, NULL, 0)`. A three-byte line (`00`, `01`, ` 1`, `+0`)
//!   whose value is 0 or 1 is a bool.
//! - `LONG`: a trailing `L` dropped, then `PyLong_FromString(s, NULL, 0)`.
//! - `PUT`, `GET`: `PyLong_FromString(s, NULL, 10)`, then a `Py_ssize_t`; `PUT` refuses a
//!   negative key.
//! - `FLOAT`: `PyOS_string_to_double`, which takes no white space, no underscores and no hex,
//!   and raises `OverflowError` for a finite literal too large for a double.
//!
//! `PyLong_FromString` skips white space around the number, takes a sign, the `0x`, `0o`,
//! `0b` prefixes in base 0 (one underscore may follow a prefix), single underscores between
//! digits, and in base 0 no leading zero before other digits. It refuses more than 4,300
//! decimal digits (`sys.get_int_max_str_digits()`).

/// A parsed integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int {
    /// It fits 64 bits.
    Small(i64),
    /// A larger integer, which rtenx does not keep.
    Big,
    /// `INT`'s bools, `I00` and `I01` (and any three-byte line worth 0 or 1).
    Bool(bool),
}

/// Decimal digits `PyLong_FromString` converts at most (CPython's default
/// `sys.get_int_max_str_digits()`).
pub const MAX_STR_DIGITS: usize = 4300;

/// The argument of `INT`, the line without its newline.
pub fn int(line: &[u8]) -> Result<Int, &'static str> {
    if line.is_empty() {
        return Err(TRUNCATED);
    }
    let s = c_string(line);
    match strtol(s) {
        Some(value) => {
            // `len == 3` counts the newline.
            if line.len() == 2 && (value == 0 || value == 1) {
                Ok(Int::Bool(value == 1))
            } else {
                Ok(Int::Small(value))
            }
        }
        None => long(s, Base::Any).map_err(|_| "could not convert string to int"),
    }
}

/// The argument of `LONG`, the line without its newline.
pub fn long_line(line: &[u8]) -> Result<Int, &'static str> {
    if line.is_empty() {
        return Err(TRUNCATED);
    }
    let text = line.strip_suffix(b"L").unwrap_or(line);
    long(c_string(text), Base::Any)
}

/// The key of `PUT` or `GET`, the line without its newline.
pub fn memo_key(line: &[u8], put: bool) -> Result<u64, &'static str> {
    if line.is_empty() {
        return Err(TRUNCATED);
    }
    match long(c_string(line), Base::Ten)? {
        Int::Small(key) if key >= 0 => Ok(key.unsigned_abs()),
        Int::Small(_) if put => Err("negative PUT argument"),
        // GET of a negative key finds nothing, as one never stored.
        Int::Small(_) => Err("memo value not found"),
        Int::Big | Int::Bool(_) => Err("Python int too large to convert to C ssize_t"),
    }
}

/// The argument of `FLOAT`, the line without its newline.
pub fn float(line: &[u8]) -> Result<f64, &'static str> {
    if line.is_empty() {
        return Err(TRUNCATED);
    }
    const INVALID: &str = "could not convert string to float";
    let text = std::str::from_utf8(c_string(line)).map_err(|_| INVALID)?;
    // Rust's grammar is Python's here: no white space, underscores or hex, and `inf`,
    // `infinity` and `nan` in any case with a sign.
    let value: f64 = text.parse().map_err(|_| INVALID)?;
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let named = digits.eq_ignore_ascii_case("inf") || digits.eq_ignore_ascii_case("infinity");
    if value.is_infinite() && !named {
        return Err("value too large to convert to float");
    }
    Ok(value)
}

/// The argument of `FLOAT` as the pure-Python unpickler reads it (`float(line)`, what
/// `joblib.load` and `pickle._Unpickler` use): white space around it, underscores between
/// digits, and a finite literal too large for a double is infinity. It reads on where the C
/// unpickler refuses `1e999`, so a call after such a FLOAT still runs under joblib.
pub fn python_float(line: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(line).ok()?;
    let text = text.trim_matches(|c: char| c.is_ascii() && is_space(c as u8));
    let bytes = text.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let underscores_ok = (bytes.iter().enumerate())
        .filter(|&(_, &b)| b == b'_')
        .all(|(i, _)| i > 0 && digit(i - 1) && digit(i + 1));
    if !underscores_ok || text.is_empty() {
        return None;
    }
    text.replace('_', "").parse().ok()
}

/// What `_Unpickler_Readline` calls an empty line.
const TRUNCATED: &str = "pickle data was truncated";

/// The line up to its first NUL, as C code reads it.
fn c_string(line: &[u8]) -> &[u8] {
    match memchr::memchr(0, line) {
        Some(nul) => line.get(..nul).unwrap_or(line),
        None => line,
    }
}

/// Where a number's digits start, after white space and a sign, and whether it is negative:
/// the same in `strtol` and `PyLong_FromString`.
fn sign(s: &[u8]) -> (usize, bool) {
    let i = s.iter().take_while(|&&b| is_space(b)).count();
    match s.get(i) {
        Some(b'-') => (i + 1, true),
        Some(b'+') => (i + 1, false),
        _ => (i, false),
    }
}

/// C's white space (`isspace` in the C locale), which is also CPython's `Py_ISSPACE`.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r')
}

/// glibc's `strtol(s, &end, 0)` on `s` followed by a newline: the value if it parsed to the
/// end of `s` without overflow, `None` where the C code falls back to `PyLong_FromString`.
fn strtol(s: &[u8]) -> Option<i64> {
    let (mut i, negative) = sign(s);
    let hex_digit = |at: usize| s.get(at).is_some_and(u8::is_ascii_hexdigit);
    let base: u32 = match (s.get(i), s.get(i + 1)) {
        (Some(b'0'), Some(b'x' | b'X')) if hex_digit(i + 2) => {
            i += 2;
            16
        }
        (Some(b'0'), _) => 8,
        _ => 10,
    };
    let digits = s.get(i..).unwrap_or_default();
    let count = digits
        .iter()
        .take_while(|&&b| char::from(b).is_digit(base))
        .count();
    // No digits: `end` is the start of the string, which is not the newline unless empty.
    if count == 0 || count != digits.len() {
        return (s.is_empty()).then_some(0);
    }
    let mut value: i64 = 0;
    for &b in digits {
        let digit = i64::from(char::from(b).to_digit(base)?);
        let next = value.checked_mul(i64::from(base))?;
        value = if negative {
            next.checked_sub(digit)?
        } else {
            next.checked_add(digit)?
        };
    }
    Some(value)
}

/// The bases `PyLong_FromString` is called with here.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Base {
    /// Base 0: a prefix picks the base, decimal otherwise.
    Any,
    /// Base 10.
    Ten,
}

/// `PyLong_FromString(s, NULL, base)` on `s`, which ends where the C string ends.
fn long(s: &[u8], base: Base) -> Result<Int, &'static str> {
    const INVALID: &str = "invalid literal for int()";
    let (mut i, negative) = sign(s);
    let prefix = s.get(i + 1).map(u8::to_ascii_lowercase);
    let mut only_zeros = false;
    let radix: u32 = match (base, s.get(i), prefix) {
        (Base::Ten, ..) => 10,
        (Base::Any, Some(b'0'), Some(b'x')) => 16,
        (Base::Any, Some(b'0'), Some(b'o')) => 8,
        (Base::Any, Some(b'0'), Some(b'b')) => 2,
        (Base::Any, Some(b'0'), _) => {
            // A C-style octal literal: valid only if it is zero.
            only_zeros = true;
            10
        }
        (Base::Any, ..) => 10,
    };
    if base == Base::Any && radix != 10 {
        i += 2;
        if s.get(i) == Some(&b'_') {
            i += 1;
        }
    }
    if s.get(i) == Some(&b'_') {
        return Err(INVALID);
    }
    let start = i;
    let mut digits = 0usize;
    let mut prev = 0u8;
    while let Some(&b) = s.get(i) {
        if b == b'_' {
            if prev == b'_' {
                return Err(INVALID);
            }
        } else if char::from(b).is_digit(radix) {
            digits += 1;
        } else {
            break;
        }
        prev = b;
        i += 1;
    }
    if prev == b'_' || i == start {
        return Err(INVALID);
    }
    if radix == 10 && digits > MAX_STR_DIGITS {
        return Err("Exceeds the limit (4300 digits) for integer string conversion");
    }
    let number = s.get(start..i).unwrap_or_default();
    if s.get(i..).unwrap_or_default().iter().any(|&b| !is_space(b)) {
        return Err(INVALID);
    }
    let mut value: Option<i64> = Some(0);
    for &b in number.iter().filter(|&&b| b != b'_') {
        let digit = char::from(b).to_digit(radix).map(i64::from);
        value = value
            .and_then(|v| v.checked_mul(i64::from(radix)))
            .and_then(|v| digit.and_then(|d| v.checked_add(d)));
    }
    if only_zeros && value != Some(0) {
        return Err(INVALID);
    }
    Ok(match value {
        Some(v) if negative => Int::Small(-v),
        Some(v) => Int::Small(v),
        // i64::MIN itself is a big integer here; no model value is one.
        None => Int::Big,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pickle.loads(b"I" + line + b"\n.")` on CPython 3.11's C unpickler (the `Err` text is
    /// rtenx's; every `Err` is a `ValueError` or `UnpicklingError` there).
    #[test]
    fn int_lines_parse_as_the_c_unpickler_parses_them() {
        let ok = [
            (&b"0x1"[..], Int::Small(1)),
            (b"1_0", Int::Small(10)),
            (b"017", Int::Small(15)),
            (b" 5", Int::Small(5)),
            (b"5 ", Int::Small(5)),
            (b"+5", Int::Small(5)),
            (b"-0x10", Int::Small(-16)),
            (b"00", Int::Bool(false)),
            (b"01", Int::Bool(true)),
            (b" 1", Int::Bool(true)),
            (b"+0", Int::Bool(false)),
            (b"0", Int::Small(0)),
            (b"0o17", Int::Small(15)),
            (b"0b11", Int::Small(3)),
            (b"99999999999999999999", Int::Big),
            (b"\t7", Int::Small(7)),
            (b"7\r", Int::Small(7)),
            (b"007", Int::Small(7)),
            (b"5\0z", Int::Small(5)),
            (b"1_0\0z", Int::Small(10)),
        ];
        for (line, value) in ok {
            assert_eq!(int(line), Ok(value), "{}", String::from_utf8_lossy(line));
        }
        for line in [
            &b""[..],
            b"0x",
            b"1__0",
            b"_1",
            b"1e3",
            b"\xd9\xa3",
            b"0_7",
            b"08",
            b" ",
            b"+",
        ] {
            assert!(int(line).is_err(), "{}", String::from_utf8_lossy(line));
        }
        let many = vec![b'7'; MAX_STR_DIGITS + 1];
        assert!(int(&many).is_err());
        assert_eq!(int(&many[1..]), Ok(Int::Big));
    }

    /// `pickle._Unpickler(io.BytesIO(b"F" + line + b"\n.")).load()` on CPython 3.11.
    #[test]
    fn the_pure_python_unpickler_reads_floats_as_float_does() {
        assert_eq!(python_float(b" 1.5 "), Some(1.5));
        assert_eq!(python_float(b"1_0.5"), Some(10.5));
        assert_eq!(python_float(b"1e999"), Some(f64::INFINITY));
        for line in [&b"1__0"[..], b"_1", b"1_", b"", b" ", b"1.5\0z", b"0x1p3"] {
            assert_eq!(
                python_float(line),
                None,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn long_put_get_and_float_lines_parse_as_cpython_parses_them() {
        assert_eq!(long_line(b"12L"), Ok(Int::Small(12)));
        assert_eq!(long_line(b"0x10"), Ok(Int::Small(16)));
        assert_eq!(long_line(b" 5 "), Ok(Int::Small(5)));
        assert_eq!(long_line(b"5\0z"), Ok(Int::Small(5)));
        assert!(long_line(b"L").is_err());
        assert_eq!(memo_key(b"007", true), Ok(7));
        assert_eq!(memo_key(b" 7 ", true), Ok(7));
        assert_eq!(memo_key(b"1_0", false), Ok(10));
        assert!(memo_key(b"-1", true).is_err());
        assert!(memo_key(b"0x1", true).is_err());
        assert!(memo_key(b"1_", false).is_err());
        assert!(memo_key(b"99999999999999999999", true).is_err());
        assert_eq!(float(b"1.5"), Ok(1.5));
        assert_eq!(float(b".5"), Ok(0.5));
        assert_eq!(float(b"1."), Ok(1.0));
        assert_eq!(float(b"+1"), Ok(1.0));
        assert_eq!(float(b"1E5"), Ok(100_000.0));
        assert_eq!(float(b"1e-999"), Ok(0.0));
        assert_eq!(float(b"1.5\0zz"), Ok(1.5));
        assert_eq!(float(b"-Infinity"), Ok(f64::NEG_INFINITY));
        assert_eq!(float(b"INF"), Ok(f64::INFINITY));
        assert!(float(b"naN").is_ok_and(f64::is_nan));
        for line in [
            &b" 1.5"[..],
            b"1.5 ",
            b"1_0",
            b"1e999",
            b".",
            b"0x1p3",
            b"",
            b"1e",
            b"1.5\r",
        ] {
            assert!(float(line).is_err(), "{}", String::from_utf8_lossy(line));
        }
    }
}

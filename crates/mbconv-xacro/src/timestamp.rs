//! YAML timestamps as `xacro.load_yaml` reads them: PyYAML's safe loader resolves a plain
//! scalar such as `2024-01-01` or `2001-12-14t21:59:43.10-05:00` to a Python
//! `datetime.date` or `datetime.datetime`, which prints by `str` as an ISO text and by `repr`
//! (inside a list or a dictionary) as its constructor call. This module reads the two forms
//! the YAML 1.1 timestamp type allows, checks them as Python's constructors do, and prints,
//! compares and reads fields of them as Python does. It does no date arithmetic.

use std::cmp::Ordering;
use std::fmt::Write as _;

/// A `datetime.date` (no `time`) or a `datetime.datetime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Timestamp {
    year: u16,
    month: u8,
    day: u8,
    time: Option<Time>,
}

/// The time of day of a `datetime.datetime`, with its UTC offset in minutes when it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Time {
    hour: u8,
    minute: u8,
    second: u8,
    microsecond: u32,
    offset_minutes: Option<i32>,
}

/// Reads `digits` ASCII digits (`min..=max` of them) at the front of `s`.
fn digits(s: &[u8], min: usize, max: usize) -> Option<(u32, &[u8])> {
    let n = s.iter().take(max).take_while(|b| b.is_ascii_digit()).count();
    if n < min {
        return None;
    }
    let value = s[..n].iter().fold(0, |v, b| v * 10 + u32::from(b - b'0'));
    Some((value, &s[n..]))
}

fn expect(s: &[u8], byte: u8) -> Option<&[u8]> {
    s.strip_prefix(&[byte])
}

/// The numbers of a timestamp as written, before they are checked.
struct Written {
    year: u32,
    month: u32,
    day: u32,
    time: Option<WrittenTime>,
}

/// The numbers of a timestamp's time of day as written; the offset in minutes.
struct WrittenTime {
    hour: u32,
    minute: u32,
    second: u32,
    microsecond: u32,
    offset: Option<i32>,
}

/// The fields of a scalar PyYAML's resolver takes for a timestamp: `YYYY-MM-DD`, or
/// `YYYY-M-D` then `T`, `t` or blanks, `h:mm:ss`, an optional `.fraction` and an optional
/// zone (`Z`, `+h`, `-hh:mm`, after optional blanks). `None` for any other text.
fn fields(text: &str) -> Option<Written> {
    let s = text.as_bytes();
    let (year, s) = digits(s, 4, 4)?;
    let (month, s) = digits(expect(s, b'-')?, 1, 2)?;
    let (day, s) = digits(expect(s, b'-')?, 1, 2)?;
    if s.is_empty() {
        // The date-only form has two-digit months and days.
        return (text.len() == 10).then_some(Written {
            year,
            month,
            day,
            time: None,
        });
    }
    let s = match s.first()? {
        b'T' | b't' => &s[1..],
        b' ' | b'\t' => s.trim_ascii_start(),
        _ => return None,
    };
    let (hour, s) = digits(s, 1, 2)?;
    let (minute, s) = digits(expect(s, b':')?, 2, 2)?;
    let (second, mut s) = digits(expect(s, b':')?, 2, 2)?;
    let mut microsecond = 0;
    if let Some(rest) = expect(s, b'.') {
        let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        // The first six digits, padded with zeros; the rest are dropped.
        let kept: String = rest[..n.min(6)].iter().map(|b| char::from(*b)).collect();
        microsecond = format!("{kept:0<6}").parse().unwrap_or(0);
        s = &rest[n..];
    }
    let s = s.trim_ascii_start();
    let offset = match s.first() {
        None => None,
        Some(b'Z') if s.len() == 1 => Some(0),
        Some(sign @ (b'+' | b'-')) => {
            let (hours, rest) = digits(&s[1..], 1, 2)?;
            let (minutes, rest) = match expect(rest, b':') {
                Some(rest) => digits(rest, 2, 2)?,
                None => (0, rest),
            };
            if !rest.is_empty() {
                return None;
            }
            let total = i32::try_from(hours * 60 + minutes).ok()?;
            Some(if *sign == b'-' { -total } else { total })
        }
        Some(_) => return None,
    };
    Some(Written {
        year,
        month,
        day,
        time: Some(WrittenTime {
            hour,
            minute,
            second,
            microsecond,
            offset,
        }),
    })
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Checks a value against its range as Python's `datetime` constructors do.
fn in_range(value: u32, low: u32, high: u32, what: &str) -> Result<u8, String> {
    if (low..=high).contains(&value) {
        Ok(u8::try_from(value).unwrap_or(u8::MAX))
    } else {
        Err(format!("{what} must be in {low}..{high}"))
    }
}

impl Timestamp {
    /// The timestamp a plain YAML scalar stands for: `None` when PyYAML's resolver does not
    /// take it for one, an error (Python's `ValueError` text) when it does but the date or
    /// time does not exist (`2023-02-29`, an hour of 24, an offset of a day or more).
    pub fn parse(text: &str) -> Option<Result<Timestamp, String>> {
        Some(Self::build(fields(text)?))
    }

    fn build(written: Written) -> Result<Timestamp, String> {
        let Written {
            year,
            month,
            day,
            time,
        } = written;
        if !(1..=9999).contains(&year) {
            return Err(format!("year {year} is out of range"));
        }
        let month = in_range(month, 1, 12, "month")?;
        if day < 1 || day > days_in_month(year, u32::from(month)) {
            return Err("day is out of range for month".to_owned());
        }
        let time = match time {
            None => None,
            Some(WrittenTime {
                hour,
                minute,
                second,
                microsecond,
                offset,
            }) => {
                if offset.is_some_and(|m| m.abs() >= 24 * 60) {
                    return Err(
                        "offset must be a timedelta strictly between -timedelta(hours=24) and \
                         timedelta(hours=24)."
                            .to_owned(),
                    );
                }
                Some(Time {
                    hour: in_range(hour, 0, 23, "hour")?,
                    minute: in_range(minute, 0, 59, "minute")?,
                    second: in_range(second, 0, 59, "second")?,
                    microsecond,
                    offset_minutes: offset,
                })
            }
        };
        Ok(Timestamp {
            year: u16::try_from(year).unwrap_or(u16::MAX),
            month,
            day: u8::try_from(day).unwrap_or(u8::MAX),
            time,
        })
    }

    /// Python's type name: `date` or `datetime`.
    pub fn type_name(&self) -> &'static str {
        if self.time.is_some() {
            "datetime.datetime"
        } else {
            "datetime.date"
        }
    }

    /// Python's `str()`: `2024-01-01`, `2001-12-14 21:59:43.100000-05:00`.
    pub fn to_py_str(self) -> String {
        let mut out = format!("{:04}-{:02}-{:02}", self.year, self.month, self.day);
        if let Some(t) = self.time {
            let _ = write!(out, " {:02}:{:02}:{:02}", t.hour, t.minute, t.second);
            if t.microsecond != 0 {
                let _ = write!(out, ".{:06}", t.microsecond);
            }
            if let Some(m) = t.offset_minutes {
                let sign = if m < 0 { '-' } else { '+' };
                let _ = write!(out, "{sign}{:02}:{:02}", m.abs() / 60, m.abs() % 60);
            }
        }
        out
    }

    /// Python's `repr()`: `datetime.date(2024, 1, 1)`, `datetime.datetime(2001, 12, 14, 21,
    /// 59, 43, 100000, tzinfo=datetime.timezone.utc)`.
    pub fn repr(&self) -> String {
        let Some(t) = self.time else {
            return format!("datetime.date({}, {}, {})", self.year, self.month, self.day);
        };
        let mut out = format!(
            "datetime.datetime({}, {}, {}, {}, {}",
            self.year, self.month, self.day, t.hour, t.minute
        );
        // Python leaves out a zero microsecond, then a zero second.
        if t.second != 0 || t.microsecond != 0 {
            let _ = write!(out, ", {}", t.second);
        }
        if t.microsecond != 0 {
            let _ = write!(out, ", {}", t.microsecond);
        }
        match t.offset_minutes {
            None => {}
            // `datetime.timezone(timedelta(0))` is the UTC singleton.
            Some(0) => out.push_str(", tzinfo=datetime.timezone.utc"),
            Some(m) => {
                let seconds = i64::from(m) * 60;
                let days = seconds.div_euclid(86_400);
                let rest = seconds.rem_euclid(86_400);
                let delta = match (days, rest) {
                    (0, r) => format!("seconds={r}"),
                    (d, 0) => format!("days={d}"),
                    (d, r) => format!("days={d}, seconds={r}"),
                };
                let _ = write!(out, ", tzinfo=datetime.timezone(datetime.timedelta({delta}))");
            }
        }
        out.push(')');
        out
    }

    /// A field read as an attribute (`.year` ... `.microsecond`), `None` for another name.
    pub fn field(&self, name: &str) -> Option<i64> {
        let time = |f: fn(&Time) -> i64| self.time.as_ref().map(f);
        match name {
            "year" => Some(i64::from(self.year)),
            "month" => Some(i64::from(self.month)),
            "day" => Some(i64::from(self.day)),
            "hour" => time(|t| i64::from(t.hour)),
            "minute" => time(|t| i64::from(t.minute)),
            "second" => time(|t| i64::from(t.second)),
            "microsecond" => time(|t| i64::from(t.microsecond)),
            _ => None,
        }
    }

    /// The instant as microseconds in a proleptic count, shifted to UTC for an aware time.
    fn instant(&self) -> i128 {
        let days_before_year = {
            let y = i128::from(self.year) - 1;
            y * 365 + y / 4 - y / 100 + y / 400
        };
        let days_before_month: u32 = (1..u32::from(self.month))
            .map(|m| days_in_month(u32::from(self.year), m))
            .sum();
        let days = days_before_year + i128::from(days_before_month) + i128::from(self.day);
        let t = self.time.unwrap_or(Time {
            hour: 0,
            minute: 0,
            second: 0,
            microsecond: 0,
            offset_minutes: None,
        });
        let seconds =
            days * 86_400 + i128::from(t.hour) * 3600 + i128::from(t.minute) * 60 + i128::from(t.second)
                - i128::from(t.offset_minutes.unwrap_or(0)) * 60;
        seconds * 1_000_000 + i128::from(t.microsecond)
    }

    fn is_aware(&self) -> bool {
        self.time.is_some_and(|t| t.offset_minutes.is_some())
    }

    /// Python's `==`: a date never equals a datetime, a naive datetime never an aware one;
    /// aware datetimes are equal when they are the same instant.
    pub fn py_eq(&self, other: &Timestamp) -> bool {
        self.time.is_some() == other.time.is_some()
            && self.is_aware() == other.is_aware()
            && self.instant() == other.instant()
    }

    /// Python's ordering: an error (its `TypeError` text) between a date and a datetime or a
    /// naive and an aware datetime.
    pub fn py_cmp(&self, other: &Timestamp) -> Result<Ordering, String> {
        if self.time.is_some() != other.time.is_some() {
            return Err(format!(
                "can't compare {} to {}",
                self.type_name(),
                other.type_name()
            ));
        }
        if self.is_aware() != other.is_aware() {
            return Err("can't compare offset-naive and offset-aware datetimes".to_owned());
        }
        Ok(self.instant().cmp(&other.instant()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Timestamp;

    fn read(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap().unwrap()
    }

    #[test]
    fn dates_and_datetimes_print_as_python_prints_them() {
        let d = read("2024-01-01");
        assert_eq!(
            (d.to_py_str().as_str(), d.repr().as_str()),
            ("2024-01-01", "datetime.date(2024, 1, 1)")
        );
        let t = read("2001-12-14t21:59:43.10-05:00");
        assert_eq!(t.to_py_str(), "2001-12-14 21:59:43.100000-05:00");
        assert_eq!(
            t.repr(),
            "datetime.datetime(2001, 12, 14, 21, 59, 43, 100000, \
             tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400)))"
        );
        assert_eq!(
            read("2024-1-1 1:02:00").repr(),
            "datetime.datetime(2024, 1, 1, 1, 2)"
        );
        assert_eq!(
            read("2001-12-15T02:59:43.1Z").to_py_str(),
            "2001-12-15 02:59:43.100000+00:00"
        );
        assert_eq!(
            read("2001-12-14 21:59:43.1234567 +5").repr(),
            "datetime.datetime(2001, 12, 14, 21, 59, 43, 123456, \
             tzinfo=datetime.timezone(datetime.timedelta(seconds=18000)))"
        );
        assert!(
            read("2001-12-14 21:59:43 +0")
                .repr()
                .ends_with("tzinfo=datetime.timezone.utc)")
        );
    }

    #[test]
    fn only_the_resolvers_forms_are_timestamps() {
        for text in [
            "2024-1-1",
            "2024-01-01x",
            "24-01-01",
            "2024-01-01 12:00",
            "2024-01-01T1:00:00 Y",
        ] {
            assert!(Timestamp::parse(text).is_none(), "{text}");
        }
        for text in [
            "2023-02-29",
            "2024-13-01",
            "2024-01-01 24:00:00",
            "0000-01-01",
            "2024-01-01 1:00:00 +24",
        ] {
            assert!(Timestamp::parse(text).unwrap().is_err(), "{text}");
        }
        assert!(Timestamp::parse("2024-02-29").unwrap().is_ok());
    }

    #[test]
    fn aware_times_compare_as_instants() {
        let a = read("2001-12-14 21:59:43 -5");
        let b = read("2001-12-15T02:59:43Z");
        assert!(a.py_eq(&b));
        assert!(!read("2001-12-15 02:59:43").py_eq(&b));
        assert!(read("2001-12-15 02:59:43").py_cmp(&b).is_err());
        assert!(read("2001-12-15").py_cmp(&b).is_err());
        assert_eq!(
            read("2001-12-15").py_cmp(&read("2002-01-01")),
            Ok(std::cmp::Ordering::Less)
        );
    }
}

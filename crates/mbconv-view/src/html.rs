//! The page itself: a small template, the data as JSON and the front-end bundle, both inline.

/// The front-end bundle (`web/`, built by `build.rs`), when this build has one.
pub fn bundle() -> Option<&'static str> {
    #[cfg(mbconv_view_bundle)]
    {
        Some(include_str!(concat!(env!("OUT_DIR"), "/view.js")))
    }
    #[cfg(not(mbconv_view_bundle))]
    {
        None
    }
}

/// JSON made safe inside a `<script>` element: `<` only occurs in JSON strings, where
/// `\u003c` means the same and cannot end the element or open a comment.
fn inline_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// Script made safe inside a `<script>` element: `</script` cannot end it early (`<\/` means
/// the same in JavaScript strings, regular expressions and comments).
fn inline_script(script: &str) -> String {
    script
        .replace("</script", "<\\/script")
        .replace("</SCRIPT", "<\\/SCRIPT")
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The whole page for `title`, the serialised `data` and the `bundle`.
pub(crate) fn page(title: &str, data: &str, bundle: &str) -> String {
    let mut html = String::with_capacity(data.len() + bundle.len() + 1024);
    html.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    html.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str(&format!("<title>{} — mbconv view</title>\n", escape_html(title)));
    html.push_str("<meta name=\"generator\" content=\"mbconv view\">\n</head>\n<body>\n");
    html.push_str("<div id=\"mbconv-view\"></div>\n");
    html.push_str("<script type=\"application/json\" id=\"mbconv-view-data\">");
    html.push_str(&inline_json(data));
    html.push_str("</script>\n<script>");
    html.push_str(&inline_script(bundle));
    html.push_str("</script>\n</body>\n</html>\n");
    html
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nothing_inline_can_close_its_script() {
        let html = page("a<b", r#"{"m":"</script><!--"}"#, "var s='</script>';");
        assert_eq!(html.matches("</script>").count(), 2);
        assert!(html.contains("<title>a&lt;b — mbconv view</title>"));
        assert!(html.contains(r#"{"m":"\u003c/script>\u003c!--"}"#));
    }
}

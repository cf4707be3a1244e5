"""The text of a fetched page and its walls (pytest_citations/online/page_text.py): HTML reduced to
text, plain text, PDFs through the pdf extra, interstitials told from articles, and hostile pages
read in bounded time and memory."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import same_code_environment
from cpu_bounds import assert_cpu_under
from pytest_citations.core import pdf_text
from pytest_citations.online import page_text
from pytest_citations.online.page_text import PDF_EXTRA_MISSING, PageText, read_page

pytest.importorskip("selectolax")

# -- pages ----------------------------------------------------------------------------------------

# A news article as a CMS serves it: head with metadata and JSON-LD, scripts (one of them the script
# Cloudflare adds to every page it serves), styles, a nav with a "Subscribe" button and a "Sign in"
# link, a hidden sign-in dialog, a newsletter box, a comment form that asks to log in, a footer.
ARTICLE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="max-image-preview:large, noarchive">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fed holds rates steady as inflation cools | Daily Ledger</title>
<meta property="og:title" content="Fed holds rates steady as inflation cools">
<link rel="stylesheet" href="/assets/site.css">
<style>.paywall-teaser{display:none} body{font-family:Georgia,serif}</style>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
 "headline":"Fed holds rates steady as inflation cools","isAccessibleForFree":true,
 "author":{"@type":"Person","name":"Dana Whitfield"}}</script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}
gtag('js',new Date());var tpl='<div class="ad">Advertisement</div>';</script>
</head>
<body class="article-page">
<header class="site-header">
  <a class="logo" href="/">Daily Ledger</a>
  <nav><ul><li><a href="/economy">Economy</a></li><li><a href="/markets">Markets</a></li></ul></nav>
  <a class="btn btn-subscribe" href="/subscribe">Subscribe</a> <a href="/login">Sign in</a>
</header>
<dialog id="signin-modal"><form method="post" action="/login"><h2>Sign in</h2>
  <label>Email <input type="email" name="email"></label>
  <label>Password <input type="password" name="password"></label><button>Sign in</button></form></dialog>
<main>
<article>
  <h1>Fed holds rates steady as inflation cools</h1>
  <p class="byline">By <a href="/authors/dana">Dana Whitfield</a> &middot; June 12, 2024</p>
  <figure><img src="/img/fed.jpg" alt="The Federal Reserve building"><figcaption>The Federal Reserve in Washington.</figcaption></figure>
  <p>WASHINGTON &mdash; The Federal Reserve <b>held</b> interest rates steady on Wednesday, saying
     that &ldquo;inflation has eased over the past year&rdquo; but remains elevated, and signalled
     only one cut before the end of the year.</p>
  <p>Officials voted 11&ndash;0 to keep the benchmark rate in a range of 5.25% to 5.5%, the highest
     in more than two decades. &ldquo;We&rsquo;ll need to see more good data,&rdquo; the chair told
     re<em>port</em>ers, adding that the committee was &ldquo;prepared to respond to unexpected
     weakness in the labor market.&rdquo;</p>
  <blockquote><p>In recent months, there has been modest further progress toward the Committee&#8217;s
     2&nbsp;percent inflation objective.</p></blockquote>
  <p>Markets had priced in two cuts this year.<br>Treasury yields rose after the statement.</p>
  <table class="dots"><tr><th>Official</th><th>Projection</th></tr><tr><td>Median</td><td>5.1%</td></tr></table>
  <p>The economy added 272,000 jobs in May, more than economists expected, while unemployment
     ticked up to 4%. Wages grew 4.1% from a year earlier, a pace some officials consider
     too fast to bring inflation back to target. The committee will meet again in late July, and
     most economists now expect the first cut in September or later. Mortgage rates, which track
     long-term yields, have hovered near 7% for most of the spring, weighing on home sales.</p>
  <p>Several regional bank presidents said in recent speeches that they wanted to see inflation
     fall for several more months before easing policy, while others warned that holding rates
     too high for too long could push unemployment up faster than expected.</p>
  <svg class="icon" viewBox="0 0 10 10"><title>share</title><text x="0" y="5">svg label</text></svg>
  <noscript><img src="/pixel.gif" alt="">Please enable JavaScript</noscript>
  <template id="related"><p>template text</p></template>
</article>
<aside class="newsletter"><h3>The Morning Ledger</h3><p>Subscribe to our newsletter for the day's top
  stories.</p><form><input type="email" placeholder="you@example.com"><button>Subscribe</button></form></aside>
<section id="comments"><h3>Comments</h3><p>You must be logged in to post a comment.</p></section>
</main>
<footer><p>&copy; 2024 Daily Ledger. <a href="/terms">Terms</a> &middot; <a href="/privacy">Privacy</a></p>
<p>Subscribe for unlimited access. Already a subscriber? <a href="/login">Log in</a></p></footer>
<script>(function(){function c(){var b=a.contentDocument||a.contentWindow.document;if(b){var d=b.createElement('script');
d.innerHTML="window.__CF$cv$params={r:'8a1b2c3d4e5f6a7b',t:'MTcxODIwMDAwMC4wMDAwMDA='};var a=document.createElement('script');
a.nonce='';a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';document.getElementsByTagName('head')[0].appendChild(a);";
b.getElementsByTagName('head')[0].appendChild(d)}}})();</script>
</body>
</html>
"""


def html(body: str, title: str = "", head: str = "") -> bytes:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head><body>{body}</body></html>".encode()


def paragraphs(count: int) -> str:
    """``count`` paragraphs of ordinary article prose (about 50 words each)."""
    sentence = (
        "The city council approved the budget after a long debate over road repairs, school funding and the cost"
        " of the new library, which several members said had grown far beyond the first estimate. "
    )
    return "".join(f"<p>{sentence * 2}</p>" for _ in range(count))


def text_of(body: bytes, content_type: str | None = "text/html") -> str:
    result = read_page(body, content_type, wants_text=True)
    assert result.text is not None, result
    return result.text


# -- HTML to text ---------------------------------------------------------------------------------


def test_an_article_is_reduced_to_its_text_one_line_per_block():
    result = read_page(ARTICLE.encode(), "text/html; charset=utf-8", wants_text=True)
    assert result.wall is None and result.unread is None and result.partial is None
    lines = result.text.split("\n")
    assert lines[0] == "Fed holds rates steady as inflation cools | Daily Ledger"  # the title comes first
    assert "Fed holds rates steady as inflation cools" in lines
    assert (
        "WASHINGTON — The Federal Reserve held interest rates steady on Wednesday, saying that “inflation has eased"
        " over the past year” but remains elevated, and signalled only one cut before the end of the year."
    ) in lines
    assert "In recent months, there has been modest further progress toward the Committee’s 2 percent inflation objective." in lines
    # <br> and table cells break lines; inline elements never split a word
    assert "Markets had priced in two cuts this year." in lines and "Treasury yields rose after the statement." in lines
    assert lines[lines.index("Official") : lines.index("Official") + 4] == ["Official", "Projection", "Median", "5.1%"]
    assert "the chair told reporters, adding" in result.text


@pytest.mark.parametrize(
    "dropped",
    ["gtag(", "Advertisement", "font-family", "svg label", "share", "Please enable JavaScript", "template text", "NewsArticle", "main.js"],
)
def test_scripts_styles_svg_noscript_and_templates_are_not_text(dropped):
    assert dropped not in text_of(ARTICLE.encode())


def test_words_of_adjacent_blocks_never_merge_and_inline_elements_never_split_words():
    page = html("<div><p>end of one</p><p>start of two</p></div><ul><li>first</li><li>second</li></ul>"
                "<h2>Heading</h2>text after<div>a<div>b</div>c</div><p>wo<b>rd</b> <a href='#'>li</a>nk <span>x</span>y</p>")
    assert text_of(page).split("\n") == ["end of one", "start of two", "first", "second", "Heading", "text after", "a", "b", "c", "word link xy"]


def test_entities_are_decoded_and_whitespace_is_collapsed_in_each_line():
    page = html("<p>caf&eacute; &amp; cr&egrave;me &#8212; &#x201C;quoted&#x201D; &lt;tag&gt; AT&T &copy\n\n\t  spaced   out</p>")
    assert text_of(page) == "café & crème — “quoted” <tag> AT&T © spaced out"


def test_a_page_without_title_or_body_text():
    assert read_page(b"<html><head></head><body></body></html>", "text/html", wants_text=True) == PageText("")
    assert text_of(html("<p>only body</p>")) == "only body"


def test_without_wants_text_no_text_is_made_but_the_wall_is_still_told():
    assert read_page(ARTICLE.encode(), "text/html", wants_text=False) == PageText(None)
    assert read_page(CLOUDFLARE_CHALLENGE, "text/html", wants_text=False) == PageText(None, wall="a bot check")


# -- charsets -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        pytest.param("<p>\x93Caf\xe9\x94 \x96 ok</p>".encode("latin-1"), "text/html; charset=windows-1252", "“Café” – ok", id="content-type"),
        pytest.param("<meta charset=iso-8859-1><p>\x93Caf\xe9\x94</p>".encode("latin-1"), "text/html", "“Café”", id="meta, latin-1 read as browsers do"),
        pytest.param('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>日本語</p>'.encode("shift_jis"),
                     "text/html", "日本語", id="http-equiv"),
        pytest.param("<meta charset='iso-8859-1'><p>Café</p>".encode(), "text/html; charset=UTF-8", "Café", id="content-type before meta"),
        pytest.param("\ufeff<p>Café</p>".encode("utf-16-le"), "text/html; charset=iso-8859-1", "Café", id="byte order mark first"),
        pytest.param(b"<p>Caf\xc3\xa9 \xff\xfe\xc3 end</p>", "text/html", "Café \ufffd\ufffd\ufffd end", id="invalid bytes replaced"),
        pytest.param("<p>Café</p>".encode(), "text/html; charset=x-no-such-charset", "Café", id="unknown charset: UTF-8"),
        pytest.param("<p>Café</p>".encode(), 'text/html; charset="rot13"', "Café", id="a codec that is no web encoding"),
        pytest.param("<meta charset=punycode><p>Café</p>".encode(), "text/html", "Café", id="meta naming a codec that is no web encoding"),
        pytest.param("<meta charset=utf-16><p>Café</p>".encode(), "text/html", "Café", id="meta utf-16 means utf-8"),
    ],
)
def test_the_charset_comes_from_the_bom_the_content_type_the_meta_or_utf8(body, content_type, expected):
    assert text_of(body, content_type) == expected


# -- kinds of pages -------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", [None, "", "unknown/unknown", "*/*", "not a type"])
def test_a_page_of_no_usable_type_that_looks_like_html_is_read_as_html(content_type):
    assert text_of(b"\n  <!doctype html><title>T</title><p>a &amp; b", content_type) == "T\na & b"
    assert text_of(b"<div>x</div>", content_type) == "x"


@pytest.mark.parametrize("content_type", ["text/plain", "text/plain; charset=utf-8", "text/markdown", "text/csv"])
def test_plain_text_is_kept_as_it_is(content_type):
    body = "# Notes — café\n\nThe Fed <b>held</b> rates &amp; more\r\n".encode()
    assert text_of(body, content_type) == "# Notes — café\n\nThe Fed <b>held</b> rates &amp; more\r\n"


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n....", "image/png", "a page of type image/png has no text to read"),
        (b'{"quote": "x"}', "application/json", "a page of type application/json has no text to read"),
        (b"<html><p>x</p></html>", "application/octet-stream", "a page of type application/octet-stream has no text to read"),
        (b"\x00\x01binary", None, "a page of no content type that is neither HTML nor PDF has no text to read"),
    ],
)
def test_other_types_have_no_text_and_say_so(body, content_type, reason):
    assert read_page(body, content_type, wants_text=True) == PageText(None, unread=reason)
    assert read_page(body, content_type, wants_text=False) == PageText(None)


def test_an_over_long_page_is_read_up_to_the_cap_and_says_so(monkeypatch):
    monkeypatch.setattr(page_text, "MAX_BODY_BYTES", 1 << 20)
    result = read_page(b"<p>" + b"word " * 300_000 + b"</p>", "text/html", wants_text=True)
    assert result.text.startswith("word word") and result.text.endswith(" wor") and len(result.text) == (1 << 20) - len("<p>")
    assert result.partial == "only the first 1 MB of the page are read"
    plain = read_page(b"x" * 1_500_000, "text/plain", wants_text=True)
    assert plain == PageText("x" * (1 << 20), partial="only the first 1 MB of the page are read")


# -- walls ----------------------------------------------------------------------------------------

CLOUDFLARE_CHALLENGE = b"""<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge">
<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1">
<style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15}</style></head>
<body class="no-js"><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">www.example.com</h1>
<h2 class="h2" id="challenge-body-text">Verifying you are human. This may take a few seconds.</h2>
<div id="challenge-stage"></div><div id="challenge-spinner" class="spacer loading-spinner" style="display: block; visibility: visible;"></div>
<noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript>
</div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "www.example.com",cType: 'managed',cRay: '8a1b2c3d4e5f6a7b'};
var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f6a7b';
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script>
<div class="footer" role="contentinfo"><div class="footer-inner"><div class="clearfix diagnostic-wrapper">
<div class="ray-id">Ray ID: <code>8a1b2c3d4e5f6a7b</code></div></div>
<div class="text-center" id="footer-text">Performance &amp; security by <a rel="noopener noreferrer" href="https://www.cloudflare.com" target="_blank">Cloudflare</a></div></div></div>
</body></html>"""

CLOUDFLARE_BLOCK = b"""<!DOCTYPE html><html class="no-js" lang="en-US"><head><title>Attention Required! | Cloudflare</title>
<meta charset="UTF-8" /><meta name="robots" content="noindex, nofollow" /></head><body>
<div id="cf-wrapper"><div id="cf-error-details" class="cf-error-details-wrapper"><div class="cf-wrapper cf-header cf-error-overview">
<h1 data-translate="block_headline">Sorry, you have been blocked</h1>
<h2 class="cf-subheadline"><span data-translate="unable_to_access">You are unable to access</span> example.com</h2></div>
<div class="cf-section cf-wrapper"><div class="cf-columns two"><div class="cf-column"><h2 data-translate="blocked_why_headline">Why have I been blocked?</h2>
<p data-translate="blocked_why_detail">This website is using a security service to protect itself from online attacks. The action you just
performed triggered the security solution. There are several actions that could trigger this block including submitting a certain word
or phrase, a SQL command or malformed data.</p></div><div class="cf-column"><h2 data-translate="blocked_resolve_headline">What can I do to resolve this?</h2>
<p data-translate="blocked_resolve_detail">You can email the site owner to let them know you were blocked. Please include what you were
doing when this page came up and the Cloudflare Ray ID found at the bottom of this page.</p></div></div></div>
<div class="cf-error-footer cf-wrapper"><p><span class="cf-footer-item">Cloudflare Ray ID: <strong>8a1b2c3d4e5f6a7b</strong></span>
<span class="cf-footer-item">Performance &amp; security by Cloudflare</span></p></div></div></div></body></html>"""

AKAMAI_DENIED = b"""<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>

You don't have permission to access "http&#58;&#47;&#47;www&#46;example&#46;com&#47;news&#47;article" on this server.<P>
Reference&#32;&#35;18&#46;6f2d3b17&#46;1718200000&#46;1a2b3c4d
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;6f2d3b17&#46;1718200000&#46;1a2b3c4d</P>
</BODY>
</HTML>
"""

CLOUDFRONT_BLOCKED = b"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">
<TITLE>ERROR: The request could not be satisfied</TITLE>
</HEAD><BODY>
<H1>403 ERROR</H1>
<H2>The request could not be satisfied.</H2>
<HR noshade size="1px">
Request blocked.
We can't connect to the server for this app or website at this time. There might be too much traffic or a configuration error.
<BR clear="all">
<HR noshade size="1px">
<PRE>
Generated by cloudfront (CloudFront)
Request ID: 3zcK4lHm1mTqIhtvnOPq5RfN3d1_qx3QaDqZc9gFK-mTl6kqjvF6pA==
</PRE>
</BODY></HTML>"""

DATADOME = b"""<html><head><title>example.com</title><style>#cmsg{animation: A 1.5s;}@keyframes A{0%{opacity:0;}99%{opacity:0;}100%{opacity:1;}}</style></head>
<body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMAx1y2z3','hsh':'2211F522B61E269B869FA6EAFFB5E1','t':'fe','s':13461,
'e':'0a1b2c3d4e','host':'geo.captcha-delivery.com'}</script><script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script>
</body></html>"""

PERIMETERX = b"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Access to this page has been denied</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>
<section class="container"><div class="content"><h1>Before we continue...</h1>
<p>Press &amp; Hold to confirm you are<br>a human (and not a bot).</p>
<div id="px-captcha"></div><p class="reference">Reference ID 7b1c2d3e-2f5a-11ef-a1b2-0242ac120002</p></div></section>
<script>window._pxAppId = 'PXabcdef12';window._pxJsClientSrc = '/abcdef12/init.js';</script>
<script src="/abcdef12/captcha/captcha.js?a=c&u=7b1c2d3e&v=&m=0"></script></body></html>"""

GOOGLE_SORRY = html(
    "<div><b>About this page</b><br><br>Our systems have detected unusual traffic from your computer network. This page checks to"
    " see if it's really you sending the requests, and not a robot.<br><br>IP address: 203.0.113.7<br>Time: 2024-06-12T10:00:00Z</div>",
    title="https://www.google.com/search?q=fed",
)

SIGN_IN_PAGE = html(
    "<div class='auth-form'><h1>Sign in to Example</h1><form action='/session' method='post'>"
    "<label for='login'>Username or email address</label><input type='text' name='login' id='login'>"
    "<label for='password'>Password</label><input type='password' name='password' id='password'>"
    "<a href='/password_reset'>Forgot password?</a><input type='submit' value='Sign in'></form>"
    "<p>New to Example? <a href='/signup'>Create an account</a>.</p></div>"
    "<footer><a href='/terms'>Terms</a> <a href='/privacy'>Privacy</a></footer>",
    title="Sign in to Example · Example",
)

SIGN_IN_PROMPT = html(
    "<header><a href='/'>Forum</a></header><main><h1>Members only</h1><p>Log in to view this thread.</p>"
    "<a class='button' href='/login'>Log in</a> <a class='button' href='/register'>Register</a></main>",
    title="Forum",
)

REGISTRATION_WALL = html(
    "<article><h1>The hidden cost of cheap flights</h1><p>Airlines have spent a decade unbundling fares.</p>"
    "<div class='meter'><h2>Create a free account to continue reading</h2><p>You've read your free story this month.</p>"
    "<a href='/register'>Sign up</a></div></article>",
    title="The hidden cost of cheap flights",
)

PAYWALL_JSON_LD = html(
    "<article><h1>Inside the bond market's bad week</h1><p>Investors dumped long-dated Treasuries on Tuesday.</p>"
    "<div class='paywall'>" + paragraphs(6) + "</div></article>",
    title="Inside the bond market's bad week",
    head="""<script type="application/ld+json">{"@context": "https://schema.org", "@type": "NewsArticle",
      "headline": "Inside the bond market's bad week", "isAccessibleForFree": false,
      "hasPart": {"@type": "WebPageElement", "isAccessibleForFree": false, "cssSelector": ".paywall"}}</script>""",
)

PAYWALL_JSON_LD_STRING = html(
    "<article><h1>Earnings</h1><p>Shares fell.</p></article>",
    head="""<script type="application/ld+json">[{"@type":"WebSite"},{"@type":"Article","isAccessibleForFree":"False"}]</script>""",
)

PAYWALL_MICRODATA = html(
    "<article itemscope itemtype='https://schema.org/NewsArticle'><meta itemprop='isAccessibleForFree' content='false'>"
    "<h1 itemprop='headline'>Rates</h1><p>Lead paragraph.</p></article>",
)

PAYWALL_PROMPT = html(
    "<header><a href='/'>The Ledger</a><a href='/subscribe'>Subscribe</a></header><article><h1>How the deal was done</h1>"
    + paragraphs(3)
    + "<div class='gate'><h3>Subscribe to continue reading</h3><p>Get unlimited digital access for $1 a week.</p>"
    "<a href='/subscribe'>Subscribe now</a><p>Already a subscriber? <a href='/login'>Log in</a></p></div></article>"
    + "<footer>" + paragraphs(1) + "</footer>",
    title="How the deal was done",
)

METER_PROMPT = html(
    "<article><h1>Storm season</h1><p>Forecasters expect an active season.</p>"
    "<div class='meter'><p>You\u2019ve reached your limit of free articles.</p><a href='/subscribe'>See offers</a></div></article>",
)


@pytest.mark.parametrize(
    ("page", "wall"),
    [
        pytest.param(CLOUDFLARE_CHALLENGE, "a bot check", id="cloudflare challenge"),
        pytest.param(DATADOME, "a bot check", id="datadome"),
        pytest.param(PERIMETERX, "a bot check", id="perimeterx press and hold"),
        pytest.param(GOOGLE_SORRY, "a bot check", id="unusual traffic"),
        pytest.param(html("<p>Checking your browser before accessing example.org.</p>", title="Just a moment..."), "a bot check", id="old cloudflare"),
        pytest.param(CLOUDFLARE_BLOCK, "an access-denied page", id="cloudflare block"),
        pytest.param(AKAMAI_DENIED, "an access-denied page", id="akamai"),
        pytest.param(CLOUDFRONT_BLOCKED, "an access-denied page", id="cloudfront"),
        pytest.param(SIGN_IN_PAGE, "a sign-in page", id="sign-in form"),
        pytest.param(SIGN_IN_PROMPT, "a sign-in page", id="log in to view"),
        pytest.param(REGISTRATION_WALL, "a sign-in page", id="registration wall"),
        pytest.param(PAYWALL_JSON_LD, "a paywall", id="json-ld not free"),
        pytest.param(PAYWALL_JSON_LD_STRING, "a paywall", id="json-ld not free, as a string"),
        pytest.param(PAYWALL_MICRODATA, "a paywall", id="microdata not free"),
        pytest.param(PAYWALL_PROMPT, "a paywall", id="subscribe to continue reading"),
        pytest.param(METER_PROMPT, "a paywall", id="article limit"),
    ],
)
def test_interstitials_are_walls(page, wall):
    assert read_page(page, "text/html", wants_text=True).wall == wall


def test_a_paywalled_page_keeps_its_text():
    result = read_page(PAYWALL_JSON_LD, "text/html", wants_text=True)
    assert result.wall == "a paywall" and "Investors dumped long-dated Treasuries on Tuesday." in result.text


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(ARTICLE.encode(), id="article with subscribe button, sign-in dialog, newsletter, comment login"),
        pytest.param(html("<article><h1>Paywalls</h1><p>Readers now meet the same banner on most news sites: a grey box that says"
                          " \u201cSubscribe to continue reading\u201d and a price.</p></article>"), id="an article quoting a paywall prompt"),
        pytest.param(html("<article><p>" + "Publishers tested many prompts. " * 8 + "One said subscribe to continue reading, another"
                          " asked for an email address, and a third offered a day pass for a dollar to anyone who wanted it.</p>"
                          + paragraphs(1) + "</article>"), id="a long paragraph naming a paywall prompt"),
        pytest.param(html("<h1>About us</h1><p>We are a small team of reporters covering the city.</p><a href='/login'>Sign in</a>"
                          "<a href='/subscribe'>Subscribe</a>", head='<meta name="robots" content="noindex, nofollow">'), id="short page, robots meta"),
        pytest.param(html("<h1>Notes</h1><p>Short post.</p><p>You must be logged in to post a comment.</p>"), id="short post, comment login"),
        pytest.param(html("<h1>Account settings</h1><form><input type='password' name='new'></form>", title="Settings"), id="password field, no sign-in"),
        pytest.param(html(paragraphs(8), title="Just a moment..."), id="a long page whatever its title"),
        pytest.param(html(paragraphs(8) + "<div id='challenge-form'></div><script>window._cf_chl_opt={}</script>"), id="long page with a challenge widget"),
        pytest.param(html("<h1>Access denied</h1><p>A review of the film about the hacker collective.</p>", title="Access Denied (2024)"),
                     id="title alone is no access-denied page"),
        pytest.param(html("<p>Free article.</p>", head='<script type="application/ld+json">{"isAccessibleForFree": true}</script>'),
                     id="json-ld free"),
        pytest.param(html(paragraphs(8) + "<p>Sign in to continue reading your saved articles.</p>"), id="long page with a sign-in line"),
    ],
)
def test_ordinary_pages_are_no_walls(page):
    assert read_page(page, "text/html", wants_text=True).wall is None


# -- PDF ------------------------------------------------------------------------------------------


def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF of ``objects`` (object 1 the catalog) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def stream(data: bytes) -> bytes:
    packed = zlib.compress(data)
    return b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(packed), packed)


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def pdf_of(*pages: str) -> bytes:
    """A PDF whose pages show the lines of ``pages`` (lines split on newlines)."""
    count = len(pages)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * index) for index in range(count))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count %d /Kids [%s] >>" % (count, kids), FONT]
    for index, text in enumerate(pages):
        shown = b" ".join(b"(%s) Tj T*" % line.encode("latin-1") for line in text.split("\n"))
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
                       % (5 + 2 * index))
        objects.append(stream(b"BT /F1 12 Tf 72 720 Td 14 TL " + shown + b" ET"))
    return raw_pdf(objects)


def test_a_pdfs_text_is_read_page_by_page():
    pytest.importorskip("pypdf")
    result = read_page(pdf_of("The Fed held rates steady.\nOfficials voted 11-0.", "Second page."), "application/pdf", wants_text=True)
    assert result.unread is None and result.partial is None
    assert [line.strip() for line in result.text.split("\n") if line.strip()] == ["The Fed held rates steady.", "Officials voted 11-0.", "Second page."]


@pytest.mark.parametrize("content_type", ["application/octet-stream", None, "binary/octet-stream", "application/x-pdf"])
def test_a_pdf_served_under_another_type_is_still_read(content_type):
    pytest.importorskip("pypdf")
    assert "Hello" in read_page(pdf_of("Hello"), content_type, wants_text=True).text


def test_without_wants_text_a_pdf_is_not_read():
    assert read_page(b"%PDF-1.7 not even a pdf", "application/pdf", wants_text=False) == PageText(None)


def test_without_the_pdf_extra_a_pdf_has_no_text_and_says_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)  # (import pypdf raises ImportError)
    assert read_page(pdf_of("Hello"), "application/pdf", wants_text=True) == PageText(None, unread=PDF_EXTRA_MISSING, limited=True)


def test_an_encrypted_pdf_has_no_text_unless_it_opens_without_a_password():
    pypdf = pytest.importorskip("pypdf")
    import io

    def encrypted(user_password: str) -> bytes:
        writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(pdf_of("Secret minutes"))))
        writer.encrypt(user_password, owner_password="owner", algorithm="RC4-128")
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()

    assert read_page(encrypted("reader"), "application/pdf", wants_text=True) == PageText(None, unread="the PDF is encrypted")
    assert "Secret minutes" in read_page(encrypted(""), "application/pdf", wants_text=True).text


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\ngarbage that is no PDF", id="garbage"),
        pytest.param(pdf_of("Hello")[:300], id="truncated"),
        pytest.param(b"%PDF-1.4\n" + bytes(range(256)) * 4000, id="binary noise"),
        pytest.param(raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count 2 /Kids [2 0 R] >>"]), id="page tree loop"),
    ],
)
def test_a_damaged_pdf_has_no_text_and_a_reason_never_a_traceback(body):
    pytest.importorskip("pypdf")
    result = read_page(body, "application/pdf", wants_text=True)
    assert result.text is None and result.unread is not None and result.unread.startswith(("the PDF cannot be read", "the PDF has no pages"))


def test_only_the_first_pages_of_a_long_pdf_are_read_and_it_says_so(monkeypatch):
    """(In this process, as the child that reads a PDF does, under a smaller limit.)"""
    pytest.importorskip("pypdf")
    monkeypatch.setattr(pdf_text, "MAX_PAGES", 2)
    result = pdf_text.extract(pdf_of("one", "two", "three"))
    assert [page.strip() for page in result.pages] == ["one", "two"] and result.count == 3
    assert result.partial == "only the first 2 of the PDF's 3 pages are read"


def test_a_pdf_that_takes_too_long_keeps_the_pages_read_in_time(monkeypatch):
    pytest.importorskip("pypdf")
    monkeypatch.setattr(pdf_text, "SECONDS", 0.0)  # (time is up at the first operator)
    assert pdf_text.extract(pdf_of("one", "two")) == pdf_text.PdfText(None, 2, unread="reading the PDF took over 0 s", limited=True)


def test_the_text_of_a_pdf_is_kept_up_to_its_limit(monkeypatch):
    pytest.importorskip("pypdf")
    monkeypatch.setattr(pdf_text, "MAX_CHARACTERS", 6)
    result = pdf_text.extract(pdf_of("one", "two", "three"))
    assert [page.strip() for page in result.pages] == ["one"] and result.partial == (
        "only the first 1 of the PDF's 3 pages are read; its text is over 6 characters")


def test_a_pdf_is_read_in_a_process_of_its_own_and_its_pages_are_one_text():
    pytest.importorskip("pypdf")
    assert read_page(pdf_of("one", "two"), "application/pdf", wants_text=True).text.split() == ["one", "two"]


# -- hostile pages --------------------------------------------------------------------------------

FIVE_MB = 5_000_000


def nested_pdf_pages() -> bytes:
    """A page tree whose one Pages node lists the same page 800,000 times (it claims a billion)."""
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count 1000000000 /Kids [" + b"5 0 R " * 800_000 + b"] >>",
                    FONT, stream(b"BT /F1 12 Tf (x) Tj ET"),
                    b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"])


def one_page_pdf(content: bytes) -> bytes:
    return raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Count 1 /Kids [5 0 R] >>", FONT, stream(content),
                    b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"])


HOSTILE_HTML = {
    "1M nested divs": lambda: b"<div>" * (FIVE_MB // 5),
    "100k nested divs with text": lambda: b"<div>x" * 100_000,
    "deep custom elements, then many divs": lambda: b"<x-a>" * 400_000 + b"<div></div>" * 200_000,
    "nested divs between empty comments": lambda: b"<!--><div>" * (FIVE_MB // 10),
    "nested divs behind --!>": lambda: b"<!-- --!>" + b"<div>" * (FIVE_MB // 5),
    "one tag, 600k attributes": lambda: b"<div " + b" ".join(b"a%d" % i for i in range(600_000)) + b">x",
    "one tag, attributes quoting <": lambda: b"<div " + b"".join(b'a%d="<" ' % i for i in range(400_000)) + b">x",
    "one 5 MB text node": lambda: b"<p>" + b"a" * FIVE_MB,
    "many entities": lambda: b"<p>" + b"&amp;&eacute;&#x1F600;&#0;&#xD800;&bogus;" * (FIVE_MB // 40),
    "invalid bytes": lambda: bytes(range(256)) * (FIVE_MB // 256),
    "1.25M paragraphs": lambda: b"<p>x" * (FIVE_MB // 4),
    "deep tables": lambda: b"<table><tr><td>" * (FIVE_MB // 15),
    "deep options between custom elements": lambda: b"<select>" + b"<option><x-a>" * (FIVE_MB // 13),
    "svg of self-closed paths": lambda: b"<svg>" + b"<path d='M0'/>" * (FIVE_MB // 14),
    "an unclosed script": lambda: b"<script>" + b"<div>" * (FIVE_MB // 5),
    "many unclosed scripts": lambda: b"<script" * (FIVE_MB // 7),
    "nested divs in an unclosed quote": lambda: b'<div a="' + b"<div>" * (FIVE_MB // 5),
}


@pytest.mark.parametrize("name", list(HOSTILE_HTML))
def test_a_hostile_html_page_is_read_in_bounded_time_and_never_a_traceback(name):
    body = HOSTILE_HTML[name]()
    started = time.process_time()
    result = read_page(body, "text/html", wants_text=True)
    assert_cpu_under(time.process_time() - started, 3.0)
    assert result.text is not None and result.unread is None


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("1M nested divs", "only the part of the page before its elements nest over 256 deep is read"),
        ("deep custom elements, then many divs", "only the part of the page before its elements nest over 256 deep is read"),
        ("nested divs between empty comments", "only the part of the page before its elements nest over 256 deep is read"),
        ("nested divs behind --!>", "only the part of the page before its elements nest over 256 deep is read"),
        ("one tag, 600k attributes", "only the part of the page before a tag with over 256 attributes is read"),
        ("one tag, attributes quoting <", "only the part of the page before a tag with over 256 attributes is read"),
        ("1.25M paragraphs", "only the part of the page before its 250,000th tag is read"),
        ("one 5 MB text node", None),
        ("many entities", None),
    ],
)
def test_a_page_past_the_parsers_limits_is_read_up_to_them_and_says_so(name, reason):
    result = read_page(HOSTILE_HTML[name](), "text/html", wants_text=True)
    assert result.partial == reason


def test_a_page_cut_at_the_nesting_limit_keeps_the_text_before_it():
    result = read_page(b"<p>Lead paragraph.</p>" + b"<div>x" * 100_000, "text/html", wants_text=True)
    assert result.text.startswith("Lead paragraph.\nx\nx") and result.text.count("x") == 256  # (256 elements deep, each with its x)


MARKUP = st.lists(
    st.sampled_from(["<div>", "</div>", "<p>", "<b>", "</b>", "<!--", "-->", "--!>", "<script>", "</script>", "<svg>", "<path/>",
                     "<table>", "<td>", "<title>", "<br>", "&amp;", "&#x", ";", '"', "'", "=", " ", ">", "<", "\f", "word", "é", "\x00"])
    | st.text(max_size=8),
    max_size=60,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(markup=MARKUP, content_type=st.sampled_from(["text/html", "application/xhtml+xml", "text/html; charset=utf-16"]))
def test_any_markup_is_read_without_an_error(markup, content_type):
    result = read_page(markup.encode("utf-8", "surrogatepass"), content_type, wants_text=True)
    assert isinstance(result.text, str) and "\f" not in result.text and "\n\n" not in result.text


@settings(max_examples=100, deadline=None)
@given(body=st.binary(max_size=300), content_type=st.sampled_from(["application/pdf", None, "application/octet-stream"]))
def test_any_bytes_as_a_pdf_are_read_without_an_error(body, content_type):
    result = read_page(b"%PDF-1.4\n" + body, content_type, wants_text=True)
    assert (result.text is None) == (result.unread is not None)


HOSTILE_PDF = {
    "a page tree of 800k references": nested_pdf_pages,
    "a content stream of 2M operators": lambda: one_page_pdf(b"BT /F1 12 Tf " + b"(ab) Tj " * 2_000_000 + b"ET"),
    "a stream inflating to 100 MB": lambda: one_page_pdf(b"BT /F1 12 Tf (Hello) Tj ET " + b" " * 100_000_000),
}


@pytest.mark.parametrize("name", list(HOSTILE_PDF))
def test_a_hostile_pdf_is_read_in_bounded_time_and_never_a_traceback(name):
    """The CPU time of this process and of the child that reads the PDF."""
    import resource

    pytest.importorskip("pypdf")
    body = HOSTILE_PDF[name]()

    def spent() -> float:
        mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime

    started = spent()
    result = read_page(body, "application/pdf", wants_text=True)
    assert_cpu_under(spent() - started, 3.0)
    assert result.text is None and result.unread is not None


_READ = """
import pathlib, sys, time
from pytest_citations.online.page_text import read_page
started = time.process_time()
read_page(pathlib.Path(sys.argv[1]).read_bytes(), sys.argv[2], wants_text=True)
print(time.process_time() - started)
"""
# A process of its own runs the reading child, so that the child's peak memory is its own (a
# process started by the test process would report the test process's peak: Linux keeps it across exec).
_MEASURE = """
import json, resource, subprocess, sys
done = subprocess.run([sys.executable, "-c", sys.argv[1], *sys.argv[2:]], capture_output=True, text=True, timeout=60)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
print(json.dumps({"status": done.returncode, "stderr": done.stderr[-2000:], "seconds": float(done.stdout or "nan"), "megabytes": peak}))
"""


@pytest.mark.parametrize(
    ("make", "content_type"),
    [
        pytest.param(HOSTILE_HTML["one 5 MB text node"], "text/html", id="one 5 MB text node"),
        pytest.param(HOSTILE_HTML["invalid bytes"], "text/html", id="invalid bytes"),
        pytest.param(HOSTILE_HTML["1.25M paragraphs"], "text/html", id="1.25M paragraphs"),
        pytest.param(HOSTILE_HTML["svg of self-closed paths"], "text/html", id="svg of self-closed paths"),
        pytest.param(HOSTILE_PDF["a stream inflating to 100 MB"], "application/pdf", id="a stream inflating to 100 MB"),
        pytest.param(HOSTILE_PDF["a page tree of 800k references"], "application/pdf", id="a page tree of 800k references"),
    ],
)
def test_a_hostile_page_is_read_in_bounded_memory(tmp_path, make, content_type):
    """Peak memory of a child process that reads the page (the interpreter and the page's bytes included)."""
    if content_type == "application/pdf":
        pytest.importorskip("pypdf")
    page = tmp_path / "page"
    page.write_bytes(make())
    done = subprocess.run([sys.executable, "-c", _MEASURE, _READ, str(page), content_type],
                          capture_output=True, text=True, env=same_code_environment(), timeout=90, check=True)
    measured = json.loads(done.stdout)
    assert measured["status"] == 0, measured["stderr"]
    assert measured["megabytes"] < 200
    assert_cpu_under(measured["seconds"], 5.0)


@pytest.mark.parametrize(("body", "content_type", "expected"), [
    ("caf\xe9 didn\x92t".encode("latin-1"), "text/html", "café didn\u2019t"),  # a legacy page, no charset
    ("<p>\u0e01\u0e02</p>".encode("cp874"), "text/html; charset=windows-874", "\u0e01\u0e02"),
    ("<p>\u65e5\u672c</p>".encode("cp932"), "text/html; charset=x-sjis", "\u65e5\u672c"),
    ("<p>\u05d0\u05d1</p>".encode("iso8859-8"), "text/html; charset=iso-8859-8-i", "\u05d0\u05d1"),
])
def test_the_web_s_charset_labels_and_legacy_pages(body, content_type, expected):
    assert expected in read_page(body, content_type, True).text

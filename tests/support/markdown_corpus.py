"""Markdown answers for streaming tests: every construct the Markdown tests cover, and hostile input.

Each entry is a whole answer; streaming tests cut them into random chunks and check that what a tab ends
with equals one rendering of the whole. A few are long enough to be one open block for a while (a long
paragraph, list, code block, quote and table), so the raw-text stage of a long open block is exercised.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

# The hostile snippets of tests/unit/views/test_markdown.py, minus the reference definitions (an answer
# with one is shown whole, not streamed).
HOSTILE = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "<javascript:alert(1)>",
    '<a href="javascript:alert(1)">click</a>',
    '<div hx-post="/prompt" hx-trigger="load">x</div>',
    '<div hx-swap-oob="innerHTML:#transcript">gone</div>',
    '<textarea id="composer" hx-swap-oob="true">evil</textarea>',
    '<form ws-send><input name="action" value="restart"></form>',
    "<style>body { display: none }</style>",
    "![beacon](https://evil.example/track.png)",
    "![x](data:image/svg+xml,<svg onload=alert(1)>)",
    "<!-- <script>alert(1)</script> -->",
    "| a |\n|---|\n| <b onclick=alert(1)>x</b> |",
    "A & B < C > D \"quoted\" 'single' &amp; &lt;tag&gt; &#x41;",
)

_CONSTRUCTS = """# Title

Some **bold**, *em*, ~~gone~~, `code` and a [link](https://example.com/a?b=1&c=2 "title").

## A loose list

- one
- two

- three, still the same list

3. three
4. four

* nested
  - inner *item*
  - inner two

    with a second paragraph

> a quote
> over two lines

> - a list
> - in a quote

```python
print("a < b & c")

print("after a blank line inside the fence")
```

~~~~
a tilde fence with ``` inside
~~~~

    indented code
    second line

| a | b |
|:--|--:|
| 1 | 2 |
| `x` | **y** |

---

Text with a hard\\
break and an ![image](https://example.com/i.png) and <https://example.com/auto>.

Closing words.
"""


def _long_paragraph() -> str:
    return " ".join(f"word{i} *em{i}* `c{i}`" for i in range(400)) + "\n"


def _long_list() -> str:
    return "".join(f"- item {i} with **bold** and <b>raw</b>\n" for i in range(300)) + "\nAfter the list.\n"


def _long_code() -> str:
    body = "".join(f"line {i}: if a < b && c > d: print('&amp;')\n" for i in range(300))
    return f"Before.\n\n```js\n{body}```\n\nAfter the code.\n"


def _long_quote_and_table() -> str:
    quote = "".join(f"> quoted line {i} with `code`\n" for i in range(150))
    table = "| n | square |\n|---|---|\n" + "".join(f"| {i} | {i * i} |\n" for i in range(150))
    return f"{quote}\n{table}\nDone.\n"


def _unclosed_code() -> str:
    return "An answer cut off inside a code block:\n\n```\n" + "".join(f"<{i}>\n" for i in range(200))


CORPUS: dict[str, str] = {
    "constructs": _CONSTRUCTS,
    "hostile": "\n\n".join(HOSTILE) + "\n",
    "long paragraph": _long_paragraph(),
    "long list": _long_list(),
    "long code block": _long_code(),
    "long quote and table": _long_quote_and_table(),
    "unclosed code block": _unclosed_code(),
    "no trailing newline": "One paragraph.\n\n- a list\n- without a final newline",
}


def random_chunks(text: str, seed: int) -> Iterator[str]:
    """`text` in pieces of random sizes (mostly small, now and then large), the same for the same seed."""
    rng = random.Random(seed)
    start = 0
    while start < len(text):
        size = rng.choice((1, 2, 3, 5, 8, 13, 40)) if rng.random() < 0.9 else rng.randint(100, 3000)
        yield text[start : start + size]
        start += size

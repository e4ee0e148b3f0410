import { describe, expect, it } from "@effect/vitest"
import { inlineMarkdown, markdown } from "../../src/http/markdown.ts"

describe("the Markdown of the API reference", () => {
  it("renders paragraphs, lists, inline code, emphasis and links", () => {
    expect(markdown("Send `image` **once**, *please*:\n\n- a [guide](https://example.org/x)\n- `b`\n\n1. first\n2. [here](/api/docs)")).toBe(
      "<p>Send <code>image</code> <strong>once</strong>, <em>please</em>:</p>\n" +
        "<ul><li>a <a href=\"https://example.org/x\">guide</a></li><li><code>b</code></li></ul>\n" +
        "<ol><li>first</li><li><a href=\"/api/docs\">here</a></li></ol>"
    )
  })

  it("lets no HTML through, in text, code, emphasis or links", () => {
    expect(inlineMarkdown("<script>alert(1)</script> `<b>` **<i>** [<img src=x>](https://a.test/\"x)")).toBe(
      "&lt;script&gt;alert(1)&lt;/script&gt; <code>&lt;b&gt;</code> <strong>&lt;i&gt;</strong> " +
        "<a href=\"https://a.test/&quot;x\">&lt;img src=x&gt;</a>"
    )
  })

  it("keeps a link to another scheme as text", () => {
    for (const href of ["javascript:alert(1)", "data:text/html,x", "//evil.test/x", "JavaScript:alert(1)"]) {
      expect(inlineMarkdown(`[click](${href})`)).toBe(`[click](${href})`)
    }
  })
})

/**
 * Ready-to-paste first requests with a new key filled in (README "Dashboard"): `curl`, Node
 * (`fetch` and `FormData`, Node 18 and later) and Python (`requests`), each sending `photo.jpg` to
 * `POST /api/describe` (spec §3) as the multipart field `image`.
 */

export interface Snippet {
  readonly id: string
  readonly label: string
  readonly code: string
}

/**
 * A string literal of JavaScript and Python alike, and of a shell's double quotes too: a key is
 * `imd_` and base64url, and `PUBLIC_URL` a URL, so neither holds a `$`, a backtick or a backslash.
 */
const quoted = (value: string) => JSON.stringify(value)

export const snippets = (key: string, publicUrl: string): ReadonlyArray<Snippet> => {
  const url = `${publicUrl}/api/describe`
  const bearer = quoted(`Bearer ${key}`)
  return [
    {
      id: "curl",
      label: "curl",
      code: `curl ${quoted(url)} \\\n  -H ${quoted(`Authorization: Bearer ${key}`)} \\\n  -F image=@photo.jpg`
    },
    {
      id: "node",
      label: "Node",
      code: `// describe.mjs: node describe.mjs
import { readFile } from "node:fs/promises"

const form = new FormData()
form.append("image", new Blob([await readFile("photo.jpg")], { type: "image/jpeg" }), "photo.jpg")
const response = await fetch(${quoted(url)}, {
  method: "POST",
  headers: { Authorization: ${bearer} },
  body: form
})
console.log(response.status, await response.json())`
    },
    {
      id: "python",
      label: "Python",
      code: `# pip install requests
import requests

with open("photo.jpg", "rb") as image:
    response = requests.post(
        ${quoted(url)},
        headers={"Authorization": ${bearer}},
        files={"image": ("photo.jpg", image, "image/jpeg")},
    )
print(response.status_code, response.json())`
    }
  ]
}

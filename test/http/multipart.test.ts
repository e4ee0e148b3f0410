import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Data, Deferred, Effect, Exit, FastCheck as fc, Fiber, Layer, Stream } from "effect"
import { limits } from "../../src/domain/limits.ts"
import type { DescribeForm, FormFile } from "../../src/domain/describeForm.ts"
import { parseWholeForm } from "../../src/http/multipart.ts"
import { parseFormWithinBodyLimit } from "../../src/http/upload.ts"
import { clientStyles } from "../support/clientForms.ts"
import { formOf, formText } from "../support/describeForm.ts"
import {
  bytesOf,
  concatBytes,
  multipartBody,
  multipartContentType,
  partHead,
  type PartSpec
} from "../support/multipartBody.ts"
import { type RawRequest, requestHead, sendRaw } from "../support/rawHttp.ts"

const B = "----TestBoundary7MA4YWxkTrZu0gW"
const contentType = multipartContentType(B)
const KiB = 1024
const MB = 1024 * 1024

/** `body` cut at `cuts` (taken modulo its length), as the pieces a stream would deliver. */
const cut = (body: Uint8Array, cuts: ReadonlyArray<number> = []): Array<Uint8Array> => {
  const at = [...new Set(cuts.map((c) => c % Math.max(body.length, 1)).filter((c) => c > 0))].sort((a, b) => a - b)
  return [0, ...at].map((start, i) => body.subarray(start, at[i] ?? body.length))
}

const everyByte = (body: Uint8Array) => Array.from({ length: body.length }, (_, i) => i)
const slices = (body: Uint8Array, size: number) =>
  Array.from({ length: Math.ceil(body.length / size) }, (_, i) => i * size)

const read = (
  body: Uint8Array,
  options: { readonly cuts?: ReadonlyArray<number>; readonly contentType?: string | undefined } = {}
) =>
  parseFormWithinBodyLimit({
    contentType: "contentType" in options ? options.contentType : contentType,
    body: Stream.fromIterable(cut(body, options.cuts))
  })

/** The form, or the tag of the failure. */
const outcome = <E extends { readonly _tag: string }>(effect: Effect.Effect<DescribeForm, E>) =>
  effect.pipe(Effect.match({ onFailure: (error) => error._tag, onSuccess: (form) => form }))

const text = formText
const file = (data: Uint8Array | string): FormFile => ({ bytes: bytesOf(data), size: bytesOf(data).length })
const form = formOf

/** A PNG signature then bytes meant to trip a parser: CRLFs, dashes, the boundary minus its last character. */
const awkwardImage = concatBytes([
  new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  `\r\n--${B.slice(0, -1)}\r\n\r\n--\r\r\n-`,
  new Uint8Array(Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff)),
  "\r"
])

const fullForm: ReadonlyArray<PartSpec> = [
  { name: "image", filename: "photo.png", contentType: "image/png", data: awkwardImage },
  { name: "schema", data: `{"title":"A title","alt":"Alt text, \\"quoted\\""}` },
  { name: "keywords", data: "sunset, beach,  plage,日本,😀" },
  { name: "context", data: "Line one\r\nline two\nline three\r\n" },
  { name: "language", data: "pt-BR" }
]

const fullFormResult = form({
  image: file(awkwardImage),
  schema: text(`{"title":"A title","alt":"Alt text, \\"quoted\\""}`),
  keywords: text("sunset, beach,  plage,日本,😀"),
  context: text("Line one\r\nline two\nline three\r\n"),
  language: text("pt-BR")
})

/** A byte pattern of any length, so large parts need no randomness. */
const pattern = (length: number, seed = 0) => {
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i++) bytes[i] = (i * 131 + seed + (i >> 11)) & 0xff
  return bytes
}

/** A 10.5 MB image in a 10.9 MB body (under the 11 MB of §8), with a filler field. */
const largeImage = pattern(10.5 * MB)
const largeImageBody = multipartBody(B, [
  { name: "filler", data: pattern(0.4 * MB - 400, 7) },
  { name: "image", filename: "big.jpg", data: largeImage }
])

class BodyBroke extends Data.TaggedError("BodyBroke") {}

describe("parseFormWithinBodyLimit", () => {
  it.effect("reads the image and every text field, values exact", () =>
    Effect.gen(function* () {
      expect(yield* read(multipartBody(B, fullForm))).toEqual(fullFormResult)
    }))

  it.effect("reads the same form one byte at a time", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, fullForm)
      expect(yield* read(body, { cuts: everyByte(body) })).toEqual(fullFormResult)
    }))

  it.effect("reads what the platform's own FormData sends", () =>
    Effect.gen(function* () {
      const data = new FormData()
      data.append("image", new Blob([awkwardImage], { type: "image/png" }), "photo.png")
      data.append("schema", '{"title":"A title"}')
      data.append("language", "French")
      const request = new Request("http://localhost/", { method: "POST", body: data })
      // Read before the body: Bun drops the generated Content-Type once the body is consumed.
      const type = request.headers.get("content-type") ?? undefined
      const body = new Uint8Array(yield* Effect.promise(() => request.arrayBuffer()))
      const result = yield* read(body, { contentType: type, cuts: slices(body, 7) })
      expect(result).toEqual(
        form({ image: file(awkwardImage), schema: text('{"title":"A title"}'), language: text("French") })
      )
    }))

  it.effect("takes the part named image whatever its filename or content type (§4.1)", () =>
    Effect.gen(function* () {
      const asText = multipartBody(B, [
        { name: "image", filename: "notes.txt", contentType: "application/octet-stream", data: "GIF89a" }
      ])
      expect(yield* read(asText)).toEqual(form({ image: file("GIF89a") }))
      const noFilename = multipartBody(B, [{ name: "image", contentType: "text/plain", data: "GIF89a" }])
      expect(yield* read(noFilename)).toEqual(form({ image: file("GIF89a") }))
    }))

  it.effect("has no image when no part is named image; empty fields are present but empty", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [{ name: "file", filename: "a.png", data: "PNG" }, { name: "schema", data: "" }])
      expect(yield* read(body)).toEqual(form({ schema: text("") }))
      expect(yield* read(multipartBody(B, []))).toEqual(form({}))
    }))

  it.effect("is NotMultipart without a multipart/form-data Content-Type that has a usable boundary", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, fullForm)
      const contentTypes = [
        undefined,
        "application/json",
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/form-data; charset=utf-8",
        `multipart/mixed; boundary=${B}`,
        `text/plain; boundary=${B}`,
        `multipart/form-data; boundary=${"b".repeat(71)}`,
        `multipart/form-data; boundary="${B} "`,
        'multipart/form-data; boundary=""',
        `multipart/form-data; boundary="${"!@#$%^&*()".repeat(7)}x"`,
        `multipart/form-data; boundary=${B}\x01`,
        `multipart/form-data; boundary =${B}`
      ]
      for (const contentType of contentTypes) {
        expect([contentType, yield* outcome(read(body, { contentType }))]).toEqual([contentType, "NotMultipart"])
      }
      const json = bytesOf('{"image":"aGVsbG8="}')
      expect(yield* outcome(read(json, { contentType: "application/json" }))).toBe("NotMultipart")
      expect(yield* outcome(read(json))).toBe("NotMultipart")
    }))

  it.effect("accepts real Content-Types: a quoted boundary, any case, more parameters, 70 characters", () =>
    Effect.gen(function* () {
      const quoted = 'Multipart/Form-Data; charset=UTF-8; boundary="a b:c"'
      expect(yield* read(multipartBody("a b:c", fullForm), { contentType: quoted })).toEqual(fullFormResult)
      const long = "x".repeat(70)
      const trailingSemicolon = `multipart/form-data;boundary=${long};`
      expect(yield* read(multipartBody(long, fullForm), { contentType: trailingSemicolon })).toEqual(fullFormResult)
    }))

  it.effect("reads a boundary as browsers do: unquoted up to `;`, whatever printable characters it holds", () =>
    Effect.gen(function* () {
      // What PHP clients generate (the WordPress plugin): `@`, `(` and `)` are not token characters.
      const php = "-------------aZ9!@#$%^&*()xyzXYZ01234"
      const cases: ReadonlyArray<readonly [boundary: string, contentType: string]> = [
        [php, `multipart/form-data; boundary=${php}`],
        [php, `multipart/form-data; boundary="${php}"`],
        [php, `multipart/form-data; boundary=${php} \t; charset=utf-8`],
        ["a;b", 'multipart/form-data; boundary="a;b"'],
        ['say "hi"', 'multipart/form-data; boundary="say \\"hi\\""'],
        ["'()+_,-./:=?", "multipart/form-data; boundary='()+_,-./:=?"],
        // A malformed parameter is skipped, not fatal; the first boundary wins.
        [B, `multipart/form-data; =x; boundary=${B}; boundary=other`],
        [B, `multipart/form-data;;charset;boundary=${B}`]
      ]
      for (const [boundary, contentType] of cases) {
        expect([contentType, yield* read(multipartBody(boundary, fullForm), { contentType })])
          .toEqual([contentType, fullFormResult])
      }
    }))

  it.effect("an empty body is NotMultipart", () =>
    Effect.gen(function* () {
      expect(yield* outcome(read(new Uint8Array(0)))).toBe("NotMultipart")
    }))

  it.effect("a form without its closing delimiter is NotMultipart, wherever it stops", () =>
    Effect.gen(function* () {
      const open = multipartBody(B, fullForm, { close: false })
      const bodies = [
        open,
        concatBytes([open, `\r\n--${B}`]),
        concatBytes([open, `\r\n--${B}-`]),
        concatBytes([open, `\r\n--${B}\r\n`]),
        concatBytes([open, `\r\n--${B}\r\nContent-Disposition: form-data; name="x"\r\n`])
      ]
      for (const body of bodies) expect(yield* outcome(read(body))).toBe("NotMultipart")
    }))

  it.effect("broken framing is NotMultipart", () =>
    Effect.gen(function* () {
      const image = partHead(B, { name: "image" })
      const bodies = [
        `${image}GIF89a\r\n--${B}x\r\n--${B}--`, // a delimiter followed by neither -- nor CRLF
        `${image}GIF89a\r\n--${B}-x--`,
        `${image}GIF89a\r\n--${B}\rx`, // CR without LF
        `--${B}\r\nno colon here\r\n\r\nGIF89a\r\n--${B}--`,
        `--${B}\r\n: no name\r\n\r\nGIF89a\r\n--${B}--`,
        "just some text, no delimiter at all"
      ]
      for (const body of bodies) expect([body, yield* outcome(read(bytesOf(body)))]).toEqual([body, "NotMultipart"])
    }))

  it.effect("ignores the preamble, transport padding after a delimiter, and the epilogue (RFC 2046)", () =>
    Effect.gen(function* () {
      const body = concatBytes([
        "This is the preamble.\r\n",
        `--${B} \t\r\n`,
        'Content-Disposition: form-data; name="image"\r\n\r\nGIF89a',
        `\r\n--${B}--\r\nThis is the epilogue, with a delimiter:\r\n--${B}\r\nbroken`
      ])
      expect(yield* read(body, { cuts: everyByte(body) })).toEqual(form({ image: file("GIF89a") }))
    }))

  describe("a body whose lines end in a bare LF (PHP_EOL), as Go's and PHP's own parsers take it", () => {
    const lf = (body: string) => body.replaceAll("\r\n", "\n")
    const image = 'Content-Disposition: form-data; name="image"; filename="a.gif"\r\nContent-Type: image/gif\r\n\r\nGIF89a'
    const language = 'Content-Disposition: form-data; name="language"\r\n\r\nfr'

    it.effect("is read as the same body with CRLF, preamble and epilogue included, in any chunking", () =>
      Effect.gen(function* () {
        const body = bytesOf(lf(`Preamble.\r\n--${B}\r\n${image}\r\n--${B} \t\r\n${language}\r\n--${B}--\r\nEpilogue.\r\n`))
        expect(yield* read(body, { cuts: everyByte(body) })).toEqual(form({ image: file("GIF89a"), language: text("fr") }))
      }))

    it.effect("a CR in its content stays content: only LF then the boundary ends a part", () =>
      Effect.gen(function* () {
        const body = bytesOf(lf(`--${B}\r\n${image}`) + `\r--${B}\r\r\n\n--${B}--`)
        expect(yield* read(body, { cuts: everyByte(body) })).toEqual(form({ image: file(`GIF89a\r--${B}\r\r\n`) }))
      }))

    it.effect("the first delimiter line sets the form's newline: a later one ending otherwise is NotMultipart", () =>
      Effect.gen(function* () {
        const bodies = [
          `--${B}\n${lf(image)}\r\n--${B}\r\n${language}\r\n--${B}--`,
          `--${B}\r\n${image}\r\n--${B}\n${language}\r\n--${B}--`
        ]
        for (const body of bodies) expect([body, yield* outcome(read(bytesOf(body)))]).toEqual([body, "NotMultipart"])
      }))

    it.effect("its header lines may end in CRLF, the CR dropped, as Go's textproto reads them", () =>
      Effect.gen(function* () {
        const body = bytesOf(`--${B}\nContent-Disposition: form-data; name="language"\r\nContent-Type: text/plain\n\r\nfr\n--${B}--`)
        expect(yield* read(body, { cuts: everyByte(body) })).toEqual(form({ language: text("fr") }))
      }))

    it.effect("in a CRLF form a bare LF in a header is no line end: a newline in a filename, as Go's writer and older curl send it", () =>
      Effect.gen(function* () {
        for (const filename of ["a\nb.jpg", "a\n\nb.jpg"]) {
          const body = bytesOf(`--${B}\r\nContent-Disposition: form-data; name="image"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\nJPEGDATA\r\n--${B}--\r\n`)
          expect([filename, yield* read(body, { cuts: everyByte(body) })]).toEqual([filename, form({ image: file("JPEGDATA") })])
        }
      }))
  })

  it.effect("a part without a form-data name is skipped", () =>
    Effect.gen(function* () {
      const body = concatBytes([
        `--${B}\r\n\r\nno headers at all`,
        `\r\n--${B}\r\nContent-Disposition: attachment; name="image"\r\n\r\nnot form-data`,
        `\r\n--${B}\r\nContent-Disposition: form-data; filename="a.png"\r\n\r\nno name`,
        `\r\n--${B}\r\nContent-Disposition: form-data; name="image"; filename="a;b \\"c\\".png"\r\n\r\nGIF89a`,
        `\r\n--${B}--`
      ])
      expect(yield* read(body)).toEqual(form({ image: file("GIF89a") }))
    }))

  it.effect("the first of duplicate fields wins; later ones are discarded", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [
        { name: "schema", data: "first" },
        { name: "image", data: "GIF89a-first" },
        { name: "schema", data: "second" },
        { name: "image", data: "GIF89a-second" }
      ])
      expect(yield* read(body)).toEqual(form({ image: file("GIF89a-first"), schema: text("first") }))
    }))

  it.effect("an empty part gives way to a later one of its name with bytes (an empty file input, then a real one)", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [
        { name: "image", filename: "", contentType: "application/octet-stream", data: "" },
        { name: "schema", data: "" },
        { name: "image", filename: "a.gif", data: "GIF89a-second" },
        { name: "schema", data: "second" },
        { name: "image", filename: "b.gif", data: "GIF89a-third" }
      ])
      expect(yield* read(body)).toEqual(form({ image: file("GIF89a-second"), schema: text("second") }))
      // Only empty parts: the first stands, empty.
      expect(yield* read(multipartBody(B, [{ name: "image", data: "" }, { name: "image", data: "" }])))
        .toEqual(form({ image: file("") }))
    }))

  it.effect("__proto__ and constructor are ignored field names, and pollute nothing", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [
        { name: "__proto__", data: '{"polluted":true}' },
        { name: "constructor", data: "prototype" },
        { name: "toString", data: "x" },
        { name: "hasOwnProperty", data: "x" },
        { name: "image", data: "GIF89a" }
      ])
      const result = yield* read(body)
      expect(result).toEqual(form({ image: file("GIF89a") }))
      expect(Object.keys(result).sort()).toEqual(["context", "image", "imageUrl", "keywords", "language", "schema"])
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
      expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
    }))

  it.effect("a text part's declared charset is honoured (a hand-written body in ISO-8859-1); an unknown or absent one is UTF-8", () =>
    Effect.gen(function* () {
      const latin1 = new Uint8Array([0x46, 0x72, 0x61, 0x6e, 0xe7, 0x61, 0x69, 0x73]) // "Français" in ISO-8859-1
      const parts = (charset: string | undefined, data: Uint8Array | string): ReadonlyArray<PartSpec> => [
        { name: "language", data, ...(charset === undefined ? {} : { contentType: `text/plain; charset=${charset}` }) },
        { name: "image", data: "GIF89a" }
      ]
      for (const [charset, data] of [["ISO-8859-1", latin1], ['"iso-8859-1"', latin1], ["windows-1252", latin1], ["utf-8", "Français"], ["no-such-charset", "Français"], [undefined, "Français"]] as const) {
        expect(yield* read(multipartBody(B, parts(charset, data))), String(charset)).toEqual(form({ language: text("Français"), image: file("GIF89a") }))
      }
    }))

  it.effect("decodes a UTF-8 character split across chunks", () =>
    Effect.gen(function* () {
      const value = "é日😀 — ok"
      const body = multipartBody(B, [{ name: "keywords", data: value }, { name: "image", data: "GIF89a" }])
      const start = body.indexOf(0xc3) // the first byte of é
      for (const at of [start + 1, start + 3, start + 4, start + 6, start + 7, start + 8]) {
        expect(yield* read(body, { cuts: [at] })).toEqual(form({ keywords: text(value), image: file("GIF89a") }))
      }
    }))

  describe("limits (§8)", () => {
    it.effect("a body over 11 MB is RequestTooLarge, and reading stops there", () =>
      Effect.gen(function* () {
        for (const type of [contentType, "application/json", undefined]) {
          let pulls = 0
          const endless = Stream.repeatEffect(Effect.sync(() => (pulls++, new Uint8Array(MB))))
          expect(yield* outcome(parseFormWithinBodyLimit({ contentType: type, body: endless }))).toBe("RequestTooLarge")
          expect(pulls).toBe(12) // 11 MB is not over the limit; the 12th pushes it over
        }
      }))

    it.effect("exactly 11 MB is read; one byte more is RequestTooLarge", () =>
      Effect.gen(function* () {
        const overhead = multipartBody(B, [{ name: "image", data: "" }]).length
        const atLimit = multipartBody(B, [{ name: "image", data: pattern(limits.bodyBytes - overhead) }])
        expect(atLimit.length).toBe(limits.bodyBytes)
        const result = yield* read(atLimit, { cuts: slices(atLimit, 64 * KiB) })
        expect(result.image?.size).toBe(limits.bodyBytes - overhead)
        const over = concatBytes([atLimit, "\n"])
        expect(yield* outcome(read(over, { cuts: slices(over, 64 * KiB) }))).toBe("RequestTooLarge")
      }))

    it.effect("a body over 11 MB is RequestTooLarge even when it is not a form (check 3 before 4)", () =>
      Effect.gen(function* () {
        const junk = pattern(limits.bodyBytes + 1)
        expect(yield* outcome(read(junk, { contentType: "application/json" }))).toBe("RequestTooLarge")
        const broken = concatBytes([`--${B}\r\nno colon\r\n\r\n`, junk])
        expect(yield* outcome(read(broken, { cuts: slices(broken, MB) }))).toBe("RequestTooLarge")
      }))

    it.effect("a 10.5 MB image in a 10.9 MB body: its size counted, 10 MB + 1 of it kept", () =>
      Effect.gen(function* () {
        expect(largeImageBody.length).toBeLessThanOrEqual(limits.bodyBytes)
        const result = yield* read(largeImageBody, { cuts: slices(largeImageBody, 64 * KiB) })
        expect(result.image?.size).toBe(largeImage.length)
        expect(result.image?.bytes.length).toBe(limits.imageBytes + 1)
        expect(Buffer.from(result.image?.bytes ?? []).equals(largeImage.subarray(0, limits.imageBytes + 1))).toBe(true)
        const tenMB = pattern(limits.imageBytes)
        const exact = yield* read(multipartBody(B, [{ name: "image", data: tenMB }]))
        expect(exact.image?.size).toBe(limits.imageBytes)
        expect(Buffer.from(exact.image?.bytes ?? []).equals(tenMB)).toBe(true)
      }))

    it.effect("with a Content-Length, a 5 MB image is kept in one buffer of its size, not a doubled one", () =>
      Effect.gen(function* () {
        const image = pattern(5 * MB, 3)
        const body = multipartBody(B, [{ name: "keywords", data: "k" }, { name: "image", data: image }])
        const cuts = slices(body, 64 * KiB)
        const sized = yield* parseFormWithinBodyLimit({ contentType, contentLength: body.length, body: Stream.fromIterable(cut(body, cuts)) })
        expect(Buffer.from(sized.image?.bytes ?? []).equals(image)).toBe(true)
        // What the body had left when the image part began, at most one chunk more than the image.
        expect(sized.image?.bytes.buffer.byteLength).toBeLessThanOrEqual(image.length + 64 * KiB)
        // Without one the buffer grows by doubling: some 8 MB held for 5 MB, and 8 MB more left behind.
        const doubled = yield* read(body, { cuts })
        expect(Buffer.from(doubled.image?.bytes ?? []).equals(image)).toBe(true)
        expect(doubled.image?.bytes.buffer.byteLength).toBeGreaterThan(1.5 * image.length)
      }))

    it.effect("a body read whole (as Bun gathers one with a Content-Length) lends its bytes: the image is not copied", () =>
      Effect.gen(function* () {
        const image = pattern(2 * MB, 5)
        const body = multipartBody(B, [{ name: "schema", data: "{}" }, { name: "image", data: image }])
        const whole = yield* read(body)
        expect(Buffer.from(whole.image?.bytes ?? []).equals(image)).toBe(true)
        expect(whole.image?.bytes.buffer).toBe(body.buffer)
        // Cut in two, the part spans chunks and is copied out of them.
        const split = yield* read(body, { cuts: [body.length - 100] })
        expect(Buffer.from(split.image?.bytes ?? []).equals(image)).toBe(true)
        expect(split.image?.bytes.buffer).not.toBe(body.buffer)
      }))

    it.effect("a Content-Length below the body's true length still gets the whole image", () =>
      Effect.gen(function* () {
        const image = pattern(300 * KiB)
        const body = multipartBody(B, [{ name: "image", data: image }])
        for (const contentLength of [0, 10, body.length - 1]) {
          const result = yield* parseFormWithinBodyLimit({ contentType, contentLength, body: Stream.fromIterable(cut(body, slices(body, 8 * KiB))) })
          expect(Buffer.from(result.image?.bytes ?? []).equals(image)).toBe(true)
        }
      }))

    it.effect("a text field over its cap is truncated, never inside a character", () =>
      Effect.gen(function* () {
        const cap = 64 * KiB
        const straddling = `${"a".repeat(cap - 1)}é and more`
        const exact = "b".repeat(cap)
        const body = multipartBody(B, [
          { name: "keywords", data: straddling },
          { name: "context", data: exact },
          { name: "language", data: "c".repeat(cap + 1) },
          { name: "schema", data: `"${"d".repeat(256 * KiB)}"` }
        ])
        expect(yield* read(body, { cuts: slices(body, 1000) })).toEqual(
          form({
            keywords: text("a".repeat(cap - 1), true),
            context: text(exact),
            language: text("c".repeat(cap), true),
            schema: text(`"${"d".repeat(256 * KiB - 1)}`, true)
          })
        )
      }))

    it.effect("a 1 MB part header is NotMultipart; 15 KiB of headers are fine", () =>
      Effect.gen(function* () {
        const huge = multipartBody(B, [{ name: "image", headers: [`X-Filler: ${"a".repeat(MB)}`], data: "GIF89a" }])
        expect(yield* outcome(read(huge, { cuts: slices(huge, 16 * KiB) }))).toBe("NotMultipart")
        const noEnd = concatBytes([`--${B}\r\nX-Filler: `, pattern(MB).map((b) => 0x61 + (b % 26))])
        expect(yield* outcome(read(noEnd))).toBe("NotMultipart")
        const filler = `X-Filler: ${"a".repeat(15 * KiB)}`
        const large = multipartBody(B, [{ name: "image", headers: [filler], data: "GIF89a" }])
        expect(yield* read(large)).toEqual(form({ image: file("GIF89a") }))
      }))

    it.effect("a part's header block may be 16 KiB exactly, in any chunking; one byte more is NotMultipart", () =>
      Effect.gen(function* () {
        const disposition = `Content-Disposition: form-data; name="image"\r\n`
        const withBlockOf = (blockBytes: number) =>
          multipartBody(B, [{ name: "image", headers: [`X-Filler: ${"a".repeat(blockBytes - disposition.length - "X-Filler: ".length - 4)}`], data: "GIF89a" }])
        for (const cut of [1, 7, 513, 64 * KiB]) {
          const exact = withBlockOf(16 * KiB)
          expect(yield* read(exact, { cuts: slices(exact, cut) })).toEqual(form({ image: file("GIF89a") }))
          const over = withBlockOf(16 * KiB + 1)
          expect(yield* outcome(read(over, { cuts: slices(over, cut) }))).toBe("NotMultipart")
        }
      }))

    it.effect("more than 64 parts is NotMultipart", () =>
      Effect.gen(function* () {
        const parts = (n: number): Array<PartSpec> => [
          { name: "image", data: "GIF89a" },
          ...Array.from({ length: n - 1 }, (_, i) => ({ name: `extra${i}`, data: "x" }))
        ]
        expect(yield* read(multipartBody(B, parts(64)))).toEqual(form({ image: file("GIF89a") }))
        expect(yield* outcome(read(multipartBody(B, parts(65))))).toBe("NotMultipart")
      }))
  })

  describe("the body stream", () => {
    it.effect("its own failure passes through", () =>
      Effect.gen(function* () {
        const body = Stream.make(bytesOf(partHead(B, { name: "image" }))).pipe(
          Stream.concat(Stream.fail(new BodyBroke()))
        )
        const error = yield* Effect.flip(parseFormWithinBodyLimit({ contentType, body }))
        expect(error).toBeInstanceOf(BodyBroke)
      }))

    it.effect("is released when the reading fiber is interrupted", () =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        const released = yield* Deferred.make<void>()
        const body = Stream.make(bytesOf(partHead(B, { name: "image" }))).pipe(
          Stream.tap(() => Deferred.succeed(started, undefined)),
          Stream.concat(Stream.never),
          Stream.ensuring(Deferred.succeed(released, undefined))
        )
        const fiber = yield* Effect.fork(parseFormWithinBodyLimit({ contentType, body }))
        yield* Deferred.await(started)
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        expect(yield* Deferred.isDone(released)).toBe(true)
      }))

    it.effect("is released when reading stops early", () =>
      Effect.gen(function* () {
        const released = yield* Deferred.make<void>()
        const body = Stream.repeatValue(new Uint8Array(MB)).pipe(Stream.ensuring(Deferred.succeed(released, undefined)))
        expect(yield* outcome(parseFormWithinBodyLimit({ contentType, body }))).toBe("RequestTooLarge")
        expect(yield* Deferred.isDone(released)).toBe(true)
      }))
  })

  describe("properties", () => {
    const delimiter = `--${B}`
    const fragment = fc.oneof(
      fc.uint8Array({ maxLength: 24 }),
      fc.constantFrom("\r", "\n", "\r\n", "\r\n-", "\r\n--", `\r\n--${B.slice(0, 9)}`, `\r\n--${B.slice(0, -1)}`, "--")
        .map(bytesOf)
    )
    const content = fc.array(fragment, { maxLength: 8 }).map(concatBytes)
    const textValue = fc.string({ unit: "grapheme", maxLength: 30 })
    const part = fc.oneof(
      fc.record({
        name: fc.constant("image"),
        filename: fc.option(fc.constantFrom("a.png", "notes.txt", "x;y.gif"), { nil: undefined }),
        contentType: fc.option(fc.constantFrom("image/png", "application/octet-stream", "text/plain"), {
          nil: undefined
        }),
        data: content
      }),
      fc.record({ name: fc.constantFrom("schema", "keywords", "context", "language"), data: textValue }),
      fc.record({ name: fc.constantFrom("filler", "__proto__", "constructor", "Image", "image "), data: content })
    )
    // A sender chooses a boundary that its content does not contain (RFC 2046 §5.1.1).
    const parts = fc
      .array(part, { maxLength: 7 })
      .filter((ps) => ps.every((p) => !Buffer.from(bytesOf(p.data)).includes(delimiter)))
    const cuts = fc.array(fc.nat(), { maxLength: 12 })

    /** What the form must be: for each field, the first part with its name and bytes, else the first with its name. */
    const expected = (ps: ReadonlyArray<PartSpec>): DescribeForm => {
      const first = (name: string) => {
        const named = ps.filter((p) => p.name === name)
        return (named.find((p) => bytesOf(p.data).length > 0) ?? named[0])?.data
      }
      const textOf = (name: string) => {
        const data = first(name)
        return data === undefined ? undefined : text(typeof data === "string" ? data : new TextDecoder().decode(data))
      }
      const image = first("image")
      return form({
        image: image === undefined ? undefined : file(image),
        schema: textOf("schema"),
        keywords: textOf("keywords"),
        context: textOf("context"),
        language: textOf("language")
      })
    }

    it.effect.prop("any chunking of a form gives the same form", [parts, cuts], ([ps, cs]) =>
      Effect.gen(function* () {
        const body = multipartBody(B, ps)
        expect(yield* read(body, { cuts: cs })).toEqual(expected(ps))
      }))

    it.effect.prop("a body read whole gives the form its streamed chunks give, its image a view of the body", [parts, cuts], ([ps, cs]) =>
      Effect.gen(function* () {
        const body = multipartBody(B, ps)
        const whole = yield* parseWholeForm(contentType, body)
        expect(whole).toEqual(yield* read(body, { cuts: cs }))
        expect(whole).toEqual(expected(ps))
        if (whole.image !== undefined && whole.image.size > 0) expect(whole.image.bytes.buffer).toBe(body.buffer)
        // Not a form: refused alike.
        expect(yield* outcome(parseWholeForm("text/plain", body))).toBe("NotMultipart")
      }))

    it.effect.prop(
      "a text over its cap keeps exactly the whole characters that fit",
      [fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }), fc.nat({ max: 16 }), cuts],
      ([tail, shift, cs]) =>
        Effect.gen(function* () {
          const cap = 64 * KiB
          const value = "a".repeat(cap - shift) + tail
          let fits = ""
          for (const character of tail) {
            if (bytesOf(fits + character).length > shift) break
            fits += character
          }
          const over = bytesOf(tail).length > shift
          const body = multipartBody(B, [{ name: "keywords", data: value }])
          const expected = form({ keywords: text(over ? "a".repeat(cap - shift) + fits : value, over) })
          expect(yield* read(body, { cuts: cs.map((c) => c * 97) })).toEqual(expected)
        })
    )

    const clientForm = fc.record({
      image: content,
      schema: fc.option(textValue, { nil: undefined }),
      keywords: fc.option(textValue, { nil: undefined }),
      language: fc.option(fc.constantFrom("en", "pt-BR", "French"), { nil: undefined }),
      // An unknown field (the WordPress plugin sends `data`, a JSON object): ignored.
      data: fc.option(fc.json(), { nil: undefined })
    })

    it.effect.prop(
      "a form is read alike from every client's encoder, whatever boundary each one draws",
      [clientForm, fc.tuple(...clientStyles.map((client) => client.boundary)), cuts],
      ([fields, boundaries, cs]) =>
        Effect.gen(function* () {
          const { image, data, ...texts } = fields
          const parts: ReadonlyArray<PartSpec> = [
            ...(data === undefined ? [] : [{ name: "data", data }]),
            { name: "image", filename: "photo.jpg", contentType: "image/jpeg", data: image },
            ...Object.entries(texts).flatMap(([name, value]) => value === undefined ? [] : [{ name, data: value }])
          ]
          const expected = form({
            image: file(image),
            ...Object.fromEntries(Object.entries(texts).flatMap(([name, value]) => value === undefined ? [] : [[name, text(value)]]))
          })
          for (const [i, client] of clientStyles.entries()) {
            const boundary = boundaries[i] ?? ""
            const body = client.body(boundary, parts)
            const result = yield* read(body, { contentType: client.contentType(boundary), cuts: cs })
            expect([client.name, result]).toEqual([client.name, expected])
          }
        })
    )

    it.effect.prop(
      "any body cut before its closing delimiter is NotMultipart",
      [parts, fc.nat(), cuts],
      ([ps, end, cs]) =>
        Effect.gen(function* () {
          const body = multipartBody(B, ps)
          const truncated = body.subarray(0, end % (body.length - 2)) // the last 2 bytes are the epilogue's CRLF
          expect(yield* outcome(read(truncated, { cuts: cs }))).toBe("NotMultipart")
        })
    )
  })
})

// ---- Over a real socket: Bun's HTTP server streams the request body into parseFormWithinBodyLimit.

class BodyFailed extends Data.TaggedError("BodyFailed")<{ readonly cause: unknown }> {}

/** What the test server answers: the form, with the image as its size, kept length and digest. */
const summarize = (result: DescribeForm) => ({
  image:
    result.image === undefined
      ? null
      : { size: result.image.size, kept: result.image.bytes.length, sha256: sha256(result.image.bytes) },
  schema: result.schema ?? null,
  keywords: result.keywords ?? null,
  context: result.context ?? null,
  language: result.language ?? null
})

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex")

class FormServer extends Context.Tag("test/FormServer")<
  FormServer,
  { readonly port: number; readonly outcomeOf: (path: string) => string | undefined }
>() {}

const FormServerLive = Layer.scoped(
  FormServer,
  Effect.gen(function* () {
    // Per path: the error tag, "form", or "interrupted" when the client went away.
    const outcomes = new Map<string, string>()
    const answer = async (request: Request): Promise<Response> => {
      const body = request.body
      const exit = await Effect.runPromiseExit(
        parseFormWithinBodyLimit({
          contentType: request.headers.get("content-type") ?? undefined,
          body: body === null
            ? Stream.empty
            : Stream.fromReadableStream(() => body, (cause) => new BodyFailed({ cause }))
        }).pipe(
          Effect.map(summarize),
          Effect.catchAll((error) => Effect.succeed({ error: error._tag }))
        ),
        { signal: request.signal }
      )
      const path = new URL(request.url).pathname
      if (Exit.isSuccess(exit)) {
        outcomes.set(path, "error" in exit.value ? exit.value.error : "form")
        return Response.json(exit.value)
      }
      outcomes.set(path, Exit.isInterrupted(exit) ? "interrupted" : "defect")
      return new Response(null, { status: 500 })
    }
    const server = yield* Effect.acquireRelease(
      Effect.sync(() =>
        Bun.serve({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: Number.MAX_SAFE_INTEGER, fetch: answer })
      ),
      (server) => Effect.promise(() => server.stop(true))
    )
    return { port: server.port ?? 0, outcomeOf: (path: string) => outcomes.get(path) }
  })
)

/** POSTs `body` to the test server, chunked or with a Content-Length (its true one unless given). */
const post = (
  path: string,
  body: ReadonlyArray<Uint8Array | string>,
  options: Omit<RawRequest, "port" | "head" | "body"> & { readonly headers?: Readonly<Record<string, string>> } = {}
) =>
  Effect.gen(function* () {
    const { port } = yield* FormServer
    const length = body.reduce((n, piece) => n + bytesOf(piece).length, 0)
    const headers = {
      ...(options.chunked === true ? { "transfer-encoding": "chunked" } : { "content-length": String(length) }),
      ...options.headers
    }
    const response = yield* sendRaw({ ...options, port, head: requestHead("POST", path, headers), body })
    expect(response.status).toBe(200)
    return JSON.parse(response.body) as unknown
  })

const withContentType = { "content-type": contentType }
const piecesOf = (body: Uint8Array, size: number) => cut(body, slices(body, size))
const asSummary = (result: DescribeForm) => JSON.parse(JSON.stringify(summarize(result))) as unknown

layer(FormServerLive, { excludeTestServices: true })("parseFormWithinBodyLimit over a real socket", (it) => {
  it.effect("a normal form, chunked at awkward places: values exact", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, fullForm)
      const result = yield* post("/full", cut(body, [1, 2, 30, 31, 100, 101, 102, 200, 333]), {
        chunked: true,
        headers: withContentType
      })
      expect(result).toEqual(asSummary(fullFormResult))
    }))

  it.effect("an image named .txt sent as application/octet-stream is still the image", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [
        { name: "image", filename: "notes.txt", contentType: "application/octet-stream", data: awkwardImage }
      ])
      const result = yield* post("/txt", [body], { headers: withContentType })
      expect(result).toEqual(asSummary(form({ image: file(awkwardImage) })))
    }))

  it.effect("no image part", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [{ name: "language", data: "en" }])
      const result = yield* post("/no-image", [body], { headers: withContentType })
      expect(result).toEqual(asSummary(form({ language: text("en") })))
    }))

  it.effect("a JSON body, an empty body, a hand-set Content-Type without boundary: NotMultipart", () =>
    Effect.gen(function* () {
      const notMultipart = { error: "NotMultipart" }
      const json = { "content-type": "application/json" }
      expect(yield* post("/json", ['{"image":"x"}'], { headers: json })).toEqual(notMultipart)
      expect(yield* post("/empty", [], { headers: withContentType })).toEqual(notMultipart)
      expect(yield* post("/empty-chunked", [], { chunked: true, headers: withContentType })).toEqual(notMultipart)
      const body = multipartBody(B, fullForm)
      const noBoundary = { "content-type": "multipart/form-data" }
      expect(yield* post("/no-boundary", [body], { headers: noBoundary })).toEqual(notMultipart)
    }))

  it.effect("a missing final boundary, or a Content-Length that stops short of it: NotMultipart", () =>
    Effect.gen(function* () {
      const open = multipartBody(B, fullForm, { close: false })
      expect(yield* post("/open", [open], { headers: withContentType })).toEqual({ error: "NotMultipart" })
      const body = multipartBody(B, fullForm)
      const short = { ...withContentType, "content-length": String(body.length - 10) }
      expect(yield* post("/short", [body], { headers: short })).toEqual({ error: "NotMultipart" })
    }))

  it.effect("11 MB + 1 chunked is RequestTooLarge, answered without waiting for the upload to end", () =>
    Effect.gen(function* () {
      const body = pattern(limits.bodyBytes + 1)
      const tooLarge = { error: "RequestTooLarge" }
      const chunked = { chunked: true, headers: withContentType }
      expect(yield* post("/large", piecesOf(body, 64 * KiB), chunked)).toEqual(tooLarge)
      // The upload never finishes (no last chunk), yet the answer comes once 11 MB + 1 have arrived.
      expect(yield* post("/large-open", piecesOf(body, 64 * KiB), { ...chunked, finish: false })).toEqual(tooLarge)
      const json = { headers: { "content-type": "application/json" } }
      expect(yield* post("/large-json", piecesOf(body, MB), json)).toEqual(tooLarge)
    }))

  it.effect("a 10.5 MB image in a 10.9 MB body: size counted, 10 MB + 1 kept", () =>
    Effect.gen(function* () {
      const chunked = { chunked: true, headers: withContentType }
      const result = yield* post("/large-image", piecesOf(largeImageBody, 64 * KiB), chunked)
      const kept = largeImage.subarray(0, limits.imageBytes + 1)
      expect(result).toMatchObject({ image: { size: largeImage.length, kept: kept.length, sha256: sha256(kept) } })
    }))

  it.effect("over-cap keywords are truncated", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [{ name: "keywords", data: "k".repeat(100 * KiB) }])
      const result = yield* post("/keywords", piecesOf(body, 4 * KiB), { chunked: true, headers: withContentType })
      expect(result).toMatchObject({ keywords: { text: "k".repeat(64 * KiB), truncated: true } })
    }))

  it.effect("a 1 MB part header, or more than 64 parts: NotMultipart", () =>
    Effect.gen(function* () {
      const huge = multipartBody(B, [{ name: "image", headers: [`X-Filler: ${"a".repeat(MB)}`], data: "GIF89a" }])
      const chunked = { chunked: true, headers: withContentType }
      expect(yield* post("/huge-header", piecesOf(huge, 64 * KiB), chunked)).toEqual({ error: "NotMultipart" })
      const many = multipartBody(
        B,
        Array.from({ length: 65 }, (_, i) => ({ name: i === 0 ? "image" : "x", data: "GIF89a" }))
      )
      expect(yield* post("/many-parts", [many], { headers: withContentType })).toEqual({ error: "NotMultipart" })
    }))

  it.effect("a UTF-8 character split across TCP writes", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [{ name: "context", data: "😀 naïve" }])
      const at = body.indexOf(0xf0) + 2 // inside the emoji's four bytes
      const result = yield* post("/utf8", cut(body, [at, at + 1, at + 6]), { pauseMs: 20, headers: withContentType })
      expect(result).toMatchObject({ context: { text: "😀 naïve", truncated: false } })
    }))

  it.effect("__proto__ and constructor fields are ignored", () =>
    Effect.gen(function* () {
      const body = multipartBody(B, [
        { name: "__proto__", data: '{"polluted":true}' },
        { name: "constructor", data: "x" },
        { name: "image", data: "GIF89a" }
      ])
      const result = yield* post("/proto", [body], { headers: withContentType })
      expect(result).toEqual(asSummary(form({ image: file("GIF89a") })))
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
    }))

  it.effect("a client that goes away mid-upload does not leave the reader hanging", () =>
    Effect.gen(function* () {
      const { port, outcomeOf } = yield* FormServer
      const head = requestHead("POST", "/gone", { ...withContentType, "content-length": String(MB) })
      const body = [partHead(B, { name: "image" }), "GIF89a"]
      const sent = yield* Effect.either(sendRaw({ port, head, body, timeoutMs: 200 }))
      expect(sent._tag).toBe("Left") // the Content-Length promised more: no answer, then the client closes
      const settled = yield* Effect.gen(function* () {
        for (let i = 0; i < 100; i++) {
          const seen = outcomeOf("/gone")
          if (seen !== undefined) return seen
          yield* Effect.sleep("20 millis")
        }
        return "still reading"
      })
      expect(["interrupted", "BodyFailed"]).toContain(settled)
    }))
})

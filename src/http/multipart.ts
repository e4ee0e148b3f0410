/**
 * The streaming reader of the `POST /api/describe` form: check 4 of spec §4.1, with the limits of
 * §8 (http/upload.ts counts the body, check 3). The body is never held whole; what is kept is
 * bounded by the caps below, whatever the client sends.
 *
 * The multipart/form-data parser (RFC 2046 §5.1.1, RFC 7578) is our own, small state machine
 * (multipartParser.ts, keeping each part in a cappedBytes.ts collector).
 * multipasta 0.2.8 (under @effect/platform) was tried and set aside: it fails a valid form whose
 * closing `--` arrives split across two chunks, reports an empty body as neither done nor failed,
 * and keeps buffering a field after its size limit has fired.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { NotMultipart } from "../domain/errors.ts"
import { type DescribeForm, formCaps } from "../domain/describeForm.ts"
import type { CappedBytes } from "./cappedBytes.ts"
import { parseHeaderValue } from "./headerValue.ts"
import { makeFormParser } from "./multipartParser.ts"

/** The bytes kept of each field (domain/describeForm.ts). */
const caps = formCaps

type FieldName = keyof typeof caps

/**
 * Reads the form from the body, which the caller has bounded (check 3, http/upload.ts): without a
 * complete, well-framed form it is read to its end, keeping nothing, before `NotMultipart`.
 */
export const parseMultipartForm = <E>(input: {
  readonly contentType: string | undefined
  /** The announced Content-Length, if any: parts are then allocated once, at their final size. */
  readonly contentLength?: number | undefined
  readonly body: Stream.Stream<Uint8Array, E>
}): Effect.Effect<DescribeForm, NotMultipart | E> =>
  formOf(input.contentType, input.contentLength, (parser) =>
    Stream.runForEachChunk(input.body, (chunks) => Effect.sync(() => {
      for (const chunk of chunks) parser?.write(chunk)
    })))

/**
 * The form of a body already read whole (bounded by the caller, check 3): its parts are views of
 * `body`. No stream to run: one pass of the parser.
 */
export const parseWholeForm = (contentType: string | undefined, body: Uint8Array): Effect.Effect<DescribeForm, NotMultipart> =>
  formOf(contentType, body.length, (parser) => Effect.sync(() => parser?.write(body)))

/** Feeds the body to a parser of the form's boundary (none when the type is not a form), then reads the form. */
const formOf = <E>(
  contentType: string | undefined,
  contentLength: number | undefined,
  feed: (parser: FormParser | undefined) => Effect.Effect<void, E>
): Effect.Effect<DescribeForm, NotMultipart | E> =>
  Effect.suspend(() => {
    const boundary = boundaryOf(contentType)
    const parser = boundary === undefined ? undefined : makeFormParser(boundary, contentLength, caps)
    return Effect.flatMap(feed(parser), () => {
      const fields = parser?.end()
      return fields === undefined ? Effect.fail(new NotMultipart()) : Effect.succeed(describeFormOf(fields))
    })
  })

type FormParser = ReturnType<typeof makeFormParser<FieldName>>

/**
 * §4.1: `multipart/form-data` with a boundary (RFC 2046: 1 to 70 characters, the last not a
 * space); else undefined. The header is read as browsers read it (headerValue.ts), quoted or not.
 */
const boundaryOf = (contentType: string | undefined): string | undefined => {
  const parsed = contentType === undefined ? undefined : parseHeaderValue(contentType)
  if (parsed?.essence !== "multipart/form-data") return undefined
  const boundary = parsed.parameters.get("boundary")
  return boundary !== undefined && /^[\x20-\x7e]{0,69}[\x21-\x7e]$/.test(boundary) ? boundary : undefined
}

const describeFormOf = (fields: ReadonlyMap<FieldName, CappedBytes>): DescribeForm => {
  const text = (name: FieldName) => fields.get(name)?.text()
  const image = fields.get("image")
  return {
    image: image === undefined ? undefined : { bytes: image.bytes(), size: image.size },
    imageUrl: text("imageUrl"),
    schema: text("schema"),
    keywords: text("keywords"),
    context: text("context"),
    language: text("language")
  }
}

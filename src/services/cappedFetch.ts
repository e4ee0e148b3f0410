/**
 * A `fetch` for the model endpoint's client that reads at most a given number of bytes of a reply.
 * The `openai` package reads every reply whole (`json()`, or `text()` for an error) whatever its
 * size; through this one, a reply past the cap is read no further, its connection is closed, and
 * reading it fails with `ReplyTooLarge`. Bytes are counted as decoded, so a compressed reply counts
 * for what it unpacks to.
 */
import * as Data from "effect/Data"

export class ReplyTooLarge extends Data.TaggedError("ReplyTooLarge")<{ readonly maxBytes: number }> {
  override get message() {
    return `the reply is over ${this.maxBytes} bytes; it was not read further`
  }
}

const capped = (body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  let read = 0
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const chunk = await reader.read()
        if (chunk.done) return controller.close()
        read += chunk.value.byteLength
        if (read <= maxBytes) return controller.enqueue(chunk.value)
        controller.error(new ReplyTooLarge({ maxBytes }))
        await reader.cancel()
      },
      cancel: (reason) => reader.cancel(reason)
    },
    // No read-ahead: a byte is read from the endpoint only when the client asks for it.
    { highWaterMark: 0 }
  )
}

export const cappedFetch = (maxBytes: number) => async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const response = await fetch(input, init)
  return response.body === null
    ? response
    : new Response(capped(response.body, maxBytes), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    })
}

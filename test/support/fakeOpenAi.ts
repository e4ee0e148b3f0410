/**
 * A local fake of the chat-completions wire format on a real loopback socket: the `openai` package
 * reaches it through `OPENAI_BASE_URL`, every request it gets is recorded, every answer scripted.
 * Shared by the adapter tests and the HTTP tests that run the whole app against it.
 */
import { Effect, Option, Schedule, Schema } from "effect"

/** One scripted answer; `signal` aborts when the client goes away; `body` is the request's JSON. */
export type Reply = (signal: AbortSignal, body: unknown) => Response | Promise<Response>

export interface Received {
  readonly method: string
  readonly path: string
  /** The query, `?` included, or "". */
  readonly search: string
  readonly headers: Headers
  readonly body: unknown
}

export interface FakeOpenAi {
  /** The base URL to set as `OPENAI_BASE_URL` (ends in `/v1`). */
  readonly url: string
  /** The requests of the current script, in order. */
  readonly received: ReadonlyArray<Received>
  /** Requests of the current script whose client went away before the reply was sent. */
  readonly aborts: () => number
  /** Replaces the replies and forgets what was received, for a server shared by several tests. */
  readonly script: (replies: ReadonlyArray<Reply>) => void
}

export const completionBody = (content: string | null, finishReason = "stop", refusal: string | null = null) => ({
  id: "chatcmpl-test",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { role: "assistant", content, refusal }, finish_reason: finishReason, logprobs: null }],
  usage: { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240 }
})

export const answer = (content: string, finishReason?: string): Reply => () =>
  Response.json(completionBody(content, finishReason))
export const json = (value: unknown): Reply => answer(JSON.stringify(value))
export const refusal: Reply = () => Response.json(completionBody(null, "stop", "I can't help with that."))
export const status = (code: number, headers: Record<string, string> = {}): Reply => () =>
  Response.json({ error: { message: `scripted failure ${code}`, type: "server_error", code: null } }, { status: code, headers })
/** A reasoning model that spent the whole output budget thinking: nothing written, cut by `length`. */
export const reasoningSpent: Reply = () =>
  Response.json({
    ...completionBody("", "length"),
    usage: { prompt_tokens: 1200, completion_tokens: 2500, total_tokens: 3700, completion_tokens_details: { reasoning_tokens: 2500 } }
  })
/** An error sent with a 200, as OpenRouter sends an upstream's (a status) or some servers theirs (a name). */
export const inBandError = (code: number | string): Reply => () => Response.json({ error: { code, message: `upstream failure ${code}` } })
/** The connection breaks after the first bytes of the reply. */
export const cutMidReply: Reply = () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode('{"id":"chatcmpl-test","choices":[{"index":0,'))
        setTimeout(() => controller.error(new Error("the connection broke")), 20)
      }
    }),
    { headers: { "content-type": "application/json" } }
  )
/** Answers after `ms`, or gives up when the client goes away. */
export const delayed = (ms: number, reply: Reply): Reply => (signal, body) =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(reply(signal, body)), ms)
    signal.addEventListener("abort", () => {
      clearTimeout(timer)
      resolve(new Response(null, { status: 499 }))
    })
  })
/** Holds the answer for a minute: longer than any test waits. */
export const hanging: Reply = delayed(60_000, status(500))

const StrictSchema = Schema.Struct({
  response_format: Schema.Struct({ json_schema: Schema.Struct({ schema: Schema.Struct({ required: Schema.Array(Schema.String) }) }) })
})

/** The field names a request asks for, in its order (from its strict JSON schema); none if it has none. */
export const requestedFields = (body: unknown): ReadonlyArray<string> =>
  Option.match(Schema.decodeUnknownOption(StrictSchema)(body), {
    onNone: () => [],
    onSome: (request) => request.response_format.json_schema.schema.required
  })

/** Answers whatever fields are asked for, each with `"<field> from the fake model"`. */
export const answerRequested: Reply = (_signal, body) =>
  Response.json(completionBody(JSON.stringify(Object.fromEntries(requestedFields(body).map((f) => [f, `${f} from the fake model`])))))

/**
 * A good answer of about `bytes` bytes: the first requested field holds a run of `a`, sent in
 * 64 KiB pieces only as the client reads them. `sent()` counts the bytes handed to the socket, so
 * the ones the client read plus what the kernel's buffers took.
 */
export const streamedAnswer = (bytes: number) => {
  let sent = 0
  const piece = new Uint8Array(64 * 1024).fill(0x61)
  const reply: Reply = (_signal, body) => {
    const fields = requestedFields(body)
    const content = JSON.stringify(Object.fromEntries(fields.map((field, i) => [field, i === 0 ? "FILL" : "a"])))
    const [head = "", tail = ""] = JSON.stringify(completionBody(content)).split("FILL")
    function* pieces() {
      yield new TextEncoder().encode(head)
      for (let left = bytes; left > 0; left -= piece.length) yield left >= piece.length ? piece : piece.subarray(0, left)
      yield new TextEncoder().encode(tail)
    }
    const next = pieces()
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const item = next.next()
        if (item.done === true) return controller.close()
        sent += item.value.length
        controller.enqueue(item.value)
      }
    }, { highWaterMark: 0 })
    return new Response(stream, { headers: { "content-type": "application/json" } })
  }
  return { reply, sent: () => sent }
}

/** A local server speaking POST /v1/chat/completions; the last reply repeats; closed with the scope. */
export const fakeOpenAi = (replies: ReadonlyArray<Reply> = []) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const received: Array<Received> = []
      let current = replies
      let aborts = 0
      let generation = 0
      const server = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: async (request) => {
          const script = generation
          let replied = false
          request.signal.addEventListener("abort", () => {
            if (!replied && script === generation) aborts++
          })
          const body: unknown = await request.json()
          const { pathname, search } = new URL(request.url)
          received.push({ method: request.method, path: pathname, search, headers: request.headers, body })
          const reply = current[Math.min(received.length, current.length) - 1] ?? status(500)
          const response = await reply(request.signal, body)
          replied = true
          return response
        }
      })
      const fake: FakeOpenAi = {
        url: `http://127.0.0.1:${server.port}/v1`,
        received,
        aborts: () => aborts,
        script: (next) => {
          generation++
          current = next
          received.length = 0
          aborts = 0
        }
      }
      return { server, fake }
    }),
    ({ server }) => Effect.promise(() => server.stop(true))
  ).pipe(Effect.map(({ fake }) => fake))

// ---- Reading what was sent

/** The parts of a request body the tests look at: the prompt, the image, the answer format. */
const ChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Tuple(
    Schema.Struct({
      role: Schema.Literal("user"),
      content: Schema.Tuple(
        Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
        Schema.Struct({ type: Schema.Literal("image_url"), image_url: Schema.Struct({ url: Schema.String }) })
      )
    })
  ),
  response_format: Schema.Unknown
})

export const sentRequest = (body: unknown) => {
  const request = Schema.decodeUnknownSync(ChatRequest)(body)
  const [text, image] = request.messages[0].content
  return { model: request.model, prompt: text.text, imageUrl: image.image_url.url, responseFormat: request.response_format }
}

// ---- Configuration and waiting

export type Env = Record<string, string | undefined>

/** Polls `condition` (a check, or a query such as a balance) in real time for up to two seconds. */
export const eventually = <R = never>(condition: (() => boolean) | Effect.Effect<boolean, never, R>) =>
  (Effect.isEffect(condition) ? condition : Effect.sync(condition)).pipe(
    Effect.filterOrFail((met) => met, () => "condition not met yet"),
    Effect.retry(Schedule.spaced("10 millis")),
    Effect.timeoutFail({ duration: "2 seconds", onTimeout: () => "condition never met" })
  )

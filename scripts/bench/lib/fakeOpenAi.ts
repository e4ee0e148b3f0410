/**
 * A fake OpenAI-compatible endpoint that answers `POST .../chat/completions` at once (or after a
 * set delay) with a valid answer for the fields the request's JSON schema names, and records the
 * size of every request: the whole body, the image's data URL, and the JPEG it carries. It runs in
 * the bench process, so the service's describer does its real work (encode, HTTP call) and the
 * model costs nothing.
 */

export interface ModelCall {
  /** Bytes of the HTTP request body (JSON). */
  readonly requestBytes: number
  /** Characters of the `data:image/...;base64,...` URL. */
  readonly dataUrlBytes: number
  /** Bytes of the image itself, base64 decoded. */
  readonly imageBytes: number
  readonly imageType: string
  /** The decoded image, when the fake was asked to keep them. */
  readonly image: Uint8Array | undefined
}

export interface FakeOpenAi {
  /** The base URL to give the service as `OPENAI_BASE_URL`. */
  readonly baseUrl: string
  readonly calls: ReadonlyArray<ModelCall>
  readonly clear: () => void
  readonly stop: () => Promise<void>
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The field names the service asks for: `response_format.json_schema.schema.required`. */
const requestedFields = (body: unknown): ReadonlyArray<string> => {
  const format = isRecord(body) ? body["response_format"] : undefined
  const jsonSchema = isRecord(format) ? format["json_schema"] : undefined
  const schema = isRecord(jsonSchema) ? jsonSchema["schema"] : undefined
  const required = isRecord(schema) ? schema["required"] : undefined
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []
}

/** The first `image_url` data URL of the messages, if any. */
const imageDataUrl = (body: unknown): string | undefined => {
  const messages = isRecord(body) ? body["messages"] : undefined
  if (!Array.isArray(messages)) return undefined
  for (const message of messages) {
    const content = isRecord(message) ? message["content"] : undefined
    if (!Array.isArray(content)) continue
    for (const part of content) {
      const imageUrl = isRecord(part) ? part["image_url"] : undefined
      const url = isRecord(imageUrl) ? imageUrl["url"] : undefined
      if (typeof url === "string") return url
    }
  }
  return undefined
}

const completion = (fields: ReadonlyArray<string>) => ({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4o-mini-2024-07-18",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: JSON.stringify(Object.fromEntries(fields.map((name) => [name, `A bench answer for ${name}.`]))),
        refusal: null
      },
      finish_reason: "stop",
      logprobs: null
    }
  ],
  usage: { prompt_tokens: 1000, completion_tokens: 30, total_tokens: 1030 }
})

export const startFakeOpenAi = (options: {
  readonly keepImages?: boolean
  /** Answer this long after the request has arrived, as a real model takes seconds. */
  readonly delayMs?: number
} = {}): FakeOpenAi => {
  const calls: Array<ModelCall> = []
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: "not found" } }, { status: 404 })
      }
      const text = await request.text()
      const body: unknown = JSON.parse(text)
      const url = imageDataUrl(body) ?? ""
      const comma = url.indexOf(",")
      const base64 = comma === -1 ? "" : url.slice(comma + 1)
      const image = Buffer.from(base64, "base64")
      calls.push({
        requestBytes: Buffer.byteLength(text),
        dataUrlBytes: url.length,
        imageBytes: image.length,
        imageType: url.slice(5, url.indexOf(";")),
        image: options.keepImages === true ? new Uint8Array(image) : undefined
      })
      if (options.delayMs !== undefined) await Bun.sleep(options.delayMs)
      return Response.json(completion(requestedFields(body)))
    }
  })
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    calls,
    clear: () => {
      calls.length = 0
    },
    stop: () => server.stop(true)
  }
}

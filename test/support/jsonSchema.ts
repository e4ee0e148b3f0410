/**
 * The part of JSON Schema the OpenAPI document uses (type, const, enum, pattern, properties,
 * required, additionalProperties, anyOf, oneOf, items; `integer` a whole number): the problems of a value, none when it conforms.
 */
type JsonSchema = {
  readonly type?: string | ReadonlyArray<string>
  readonly const?: unknown
  readonly enum?: ReadonlyArray<unknown>
  readonly pattern?: string
  readonly properties?: Record<string, JsonSchema>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: boolean | JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly items?: JsonSchema
}

const typeOf = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? "number" : typeof value

export const problems = (schema: JsonSchema, value: unknown, at = "$"): ReadonlyArray<string> => {
  const found: Array<string> = []
  if (schema.type !== undefined) {
    const types = typeof schema.type === "string" ? [schema.type] : schema.type
    const integer = types.includes("integer") && Number.isInteger(value)
    if (!integer && !types.includes(typeOf(value))) return [`${at}: expected ${types.join("|")}, got ${typeOf(value)}`]
  }
  if ("const" in schema && value !== schema.const) found.push(`${at}: expected ${JSON.stringify(schema.const)}`)
  if (schema.enum && !schema.enum.includes(value)) found.push(`${at}: ${JSON.stringify(value)} is not listed`)
  if (schema.pattern && !(typeof value === "string" && new RegExp(schema.pattern).test(value))) found.push(`${at}: does not match ${schema.pattern}`)
  if (schema.anyOf && !schema.anyOf.some((s) => problems(s, value, at).length === 0)) found.push(`${at}: matches none of anyOf`)
  if (schema.oneOf && schema.oneOf.filter((s) => problems(s, value, at).length === 0).length !== 1) found.push(`${at}: does not match exactly one of oneOf`)
  if (schema.items && Array.isArray(value)) value.forEach((item, i) => found.push(...problems(schema.items!, item, `${at}[${i}]`)))
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>
    for (const name of schema.required ?? []) if (!(name in object)) found.push(`${at}.${name}: required`)
    for (const [name, child] of Object.entries(object)) {
      const property = schema.properties?.[name]
      if (property) found.push(...problems(property, child, `${at}.${name}`))
      else if (schema.additionalProperties === false) found.push(`${at}.${name}: not allowed`)
      else if (typeof schema.additionalProperties === "object") found.push(...problems(schema.additionalProperties, child, `${at}.${name}`))
    }
  }
  return found
}

/**
 * The `schema` request field (spec §2.2): a JSON object of output field names and descriptions.
 * Pure rules; each failure carries the text that follows `Invalid schema: ` (§7.1 quotes the
 * rule messages verbatim). Entries are read, never assigned into an object, so no field name
 * (`__proto__`, `constructor`, `prototype`) can reach a prototype.
 */
import * as Either from "effect/Either"
import type { SchemaFields } from "./describe.ts"
import { InvalidSchema } from "./errors.ts"
import { eachMember, firstValue, valueEnd } from "./jsonText.ts"
import { limits } from "./limits.ts"

/** The rules' messages; the first five are quoted from §7.1. */
export const schemaRule = {
  tooManyFields: `at most ${limits.schemaFields} fields are allowed`,
  nameTooLong: `field names must be at most ${limits.fieldNameLength} characters`,
  descriptionTooLong: `field descriptions must be at most ${limits.fieldDescriptionLength} characters`,
  protoName: `"__proto__" is not allowed as a field name`,
  notJson: "the schema must be valid JSON",
  notObject: "the schema must be a JSON object of field names and descriptions",
  empty: "the schema must have at least one field",
  nested: "nested objects and arrays are not supported, each value must be a text description",
  notString: "each field description must be a string",
  emptyName: "field names must not be empty",
  tooLarge: "the schema is too large"
} as const

/** Length in characters (code points), as a person counts them. */
export const characters = (text: string) => {
  let count = 0
  for (const _ of text) count++
  return count
}

const fail = (reason: string) => Either.left(new InvalidSchema({ reason }))

/** A byte order mark before the JSON (a schema file saved by a Windows editor, sent as read) is no part of it, as for a browser's `Response.json()`. */
const byteOrderMark = "\uFEFF"

const parseJson = (text: string): Either.Either<unknown, InvalidSchema> =>
  Either.try({ try: () => JSON.parse(text) as unknown, catch: () => new InvalidSchema({ reason: schemaRule.notJson }) })

/**
 * The members of `object`, parsed from `text`, in the order sent (§2.1: the fields' order):
 * JSON.parse's object moves integer-like names ("1", "2") first. Only the names' order is read
 * from the text; a name sent twice keeps its first place and, as in the object, its last value.
 */
const membersAsSent = (text: string, object: object): Array<[string, unknown]> => {
  const parsed = Object.keys(object)
  // Without an integer-like name, the object's order is the text's: no scan.
  const names = parsed.some((name) => integerLike.test(name)) ? namesInOrder(text) : parsed
  return names.map((name) => [name, (object as Record<string, unknown>)[name]])
}

/** The names JavaScript lists first in any object (array indices; a longer match only costs the scan). */
const integerLike = /^(?:0|[1-9]\d{0,9})$/

const namesInOrder = (text: string): Array<string> => {
  const names = new Set<string>()
  eachMember(text, firstValue(text), (name, at) => {
    names.add(name)
    return valueEnd(text, at)
  })
  return [...names]
}

/**
 * Checks, in this order: JSON, a non-empty object, the field count, value types, then per rule
 * over all fields: names not empty, name length, description length, `__proto__`.
 */
export const parseSchemaFields = (sent: string): Either.Either<SchemaFields, InvalidSchema> => {
  const text = sent.startsWith(byteOrderMark) ? sent.slice(1) : sent
  return Either.flatMap(parseJson(text), (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(schemaRule.notObject)
    const entries = membersAsSent(text, value)
    if (entries.length === 0) return fail(schemaRule.empty)
    if (entries.length > limits.schemaFields) return fail(schemaRule.tooManyFields)
    if (entries.some(([, v]) => typeof v === "object" && v !== null)) return fail(schemaRule.nested)
    if (entries.some(([, v]) => typeof v !== "string")) return fail(schemaRule.notString)
    const fields = entries.map(([name, description]) => ({ name, description: description as string }))
    if (fields.some((f) => f.name.trim() === "")) return fail(schemaRule.emptyName)
    if (fields.some((f) => characters(f.name) > limits.fieldNameLength)) return fail(schemaRule.nameTooLong)
    if (fields.some((f) => characters(f.description) > limits.fieldDescriptionLength)) return fail(schemaRule.descriptionTooLong)
    if (fields.some((f) => f.name === "__proto__")) return fail(schemaRule.protoName)
    return Either.right(fields)
  })
}

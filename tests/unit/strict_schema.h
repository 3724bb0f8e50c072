/*
 * strict_schema.h - for the unit tests: does a reply schema stay inside the
 * subset of JSON Schema that OpenAI's strict structured outputs accept, and
 * that local servers' grammar engines can compile?  (Linked into the unit
 * tests like store_fixture.c; not part of the library.)
 *
 * The subset is OpenAI's "Supported schemas"
 * (https://platform.openai.com/docs/guides/structured-outputs), narrowed by
 * Arbiter's portable subset:
 *
 *   - the root is an object schema ("type": "object"), not an anyOf;
 *   - every schema has "type", or is an anyOf or a $ref; "type" is one of
 *     string, number, integer, boolean, object, array, null, or a list of them;
 *   - every object has "additionalProperties": false and a "required" that
 *     lists exactly its properties; every array has "items";
 *   - only the keywords type, properties, required, additionalProperties,
 *     items, enum, const, anyOf, $ref, $defs, description, title, pattern,
 *     format, minItems, maxItems.  minimum, maximum, exclusiveMinimum,
 *     exclusiveMaximum and multipleOf are refused: OpenAI takes them, but
 *     older grammar engines of local servers reject them;
 *   - enum and const values are of the node's type; $ref names a schema of
 *     the document ("#", "#/$defs/name");
 *   - at most 5000 object properties in all, 10 levels of nesting (objects
 *     and arrays: the root is level 1, one in a property or in items is a
 *     level below its holder), 1000 enum values in all, and 120000
 *     characters of property names, $defs names and string enum and const
 *     values together.
 */
#ifndef ARBITER_TEST_STRICT_SCHEMA_H
#define ARBITER_TEST_STRICT_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define STRICT_MAX_PROPERTIES  5000
#define STRICT_MAX_LEVELS      10
#define STRICT_MAX_ENUM_VALUES 1000
#define STRICT_MAX_CHARS       120000

/*
 * 1 when schema is inside the subset; 0 when it is not, with why (n bytes,
 * always NUL-terminated when n > 0) naming the first violation in document
 * order as "#/json/pointer: what is wrong" ("#" alone is the root).  why may
 * be NULL when n is 0.
 */
int strict_schema_check(const cJSON *schema, char *why, size_t n);

#endif

#!/usr/bin/env python3
"""Regenerate the OpenAI request and response schemas of tests/data/providers/openai/.

    python3 tests/data/providers/openai/extract.py PATH/TO/openai-openapi/openapi.yaml

Maintainer tool only (python3 + PyYAML); the tests read the JSON it writes, never this.

From OpenAI's OpenAPI description (openapi 3.1.0) it takes CreateChatCompletionRequest and
CreateChatCompletionResponse, each with every component schema it references transitively,
and writes each as one standalone JSON Schema (draft 2020-12):

- "#/components/schemas/X" becomes "#/$defs/X"; only the referenced schemas are kept.
- nullable: true (an OpenAPI 3.0 keyword the file still uses although it declares 3.1, where
  it would be ignored) becomes what it means: "null" added to "type" (and to "enum" when the
  node has one, or its enum would still reject null); without a "type", the node becomes
  {"anyOf": [node, {"type": "null"}]}.  nullable: false is dropped.
- discriminator is dropped: the oneOf/anyOf beside it already decides which branch validates
  (each branch pins its "type" member), so nothing is lost.
- example and every x-* extension are dropped (neither constrains anything); description is
  dropped to keep the files small (the YAML is the reference a reader wants); title, default
  and deprecated are kept (2020-12 annotations with the same meaning).
- The YAML is read with YAML 1.2 scalars: yes/no/on/off stay strings, dates stay strings.
"""
import json
import os
import re
import sys

import yaml

PREFIX = "#/components/schemas/"
ROOTS = {
    "chat-completions-request.schema.json": "CreateChatCompletionRequest",
    "chat-completion-response.schema.json": "CreateChatCompletionResponse",
}
# Keywords whose value is a map of name -> schema, a schema, or a list of schemas.
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
              "propertyNames", "unevaluatedProperties", "unevaluatedItems")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
DROP = ("example", "discriminator", "description", "nullable")


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader without YAML 1.1's yes/no/on/off booleans and timestamps."""


Yaml12Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))


def ref_name(ref):
    if not ref.startswith(PREFIX):
        sys.exit("unexpected $ref %r" % ref)
    return ref[len(PREFIX):]


def convert(node, refs):
    """node (a schema) as 2020-12; the names it references are added to refs."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, dict):
        sys.exit("not a schema: %r" % (node,))
    out = {}
    for k, v in node.items():
        if k in DROP or k.startswith("x-"):
            continue
        if k == "$ref":
            refs.add(ref_name(v))
            out[k] = "#/$defs/" + ref_name(v)
        elif k in SCHEMA_MAPS:
            out[k] = {name: convert(s, refs) for name, s in v.items()}
        elif k in SCHEMA_ONE:
            out[k] = convert(v, refs)
        elif k in SCHEMA_LISTS:
            out[k] = [convert(s, refs) for s in v]
        else:
            out[k] = v
    if node.get("nullable") is True:
        out = allow_null(out)
    return out


def allow_null(s):
    t = s.get("type")
    if t is None:
        keep = {k: v for k, v in s.items() if k not in ("title", "default", "deprecated")}
        wrapped = {k: v for k, v in s.items() if k in ("title", "default", "deprecated")}
        wrapped["anyOf"] = [keep, {"type": "null"}]
        return wrapped
    types = t if isinstance(t, list) else [t]
    if "null" not in types:
        s["type"] = types + ["null"]
    if "enum" in s and None not in s["enum"]:
        s["enum"] = s["enum"] + [None]
    return s


def closure(schemas, root):
    defs, todo = {}, [root]
    while todo:
        name = todo.pop()
        if name in defs:
            continue
        if name not in schemas:
            sys.exit("no schema %r" % name)
        refs = set()
        defs[name] = convert(schemas[name], refs)
        todo.extend(sorted(refs - set(defs)))
    return defs


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: extract.py PATH/TO/openai-openapi/openapi.yaml")
    src = sys.argv[1]
    with open(src, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=Yaml12Loader)
    if not str(doc.get("openapi", "")).startswith("3.1"):
        sys.exit("expected an OpenAPI 3.1 document, got %r" % doc.get("openapi"))
    schemas = doc["components"]["schemas"]
    here = os.path.dirname(os.path.abspath(__file__))
    for out_name, root in ROOTS.items():
        defs = closure(schemas, root)
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$comment": "OpenAI %s from openapi.yaml %s (info.version), converted by "
                        "extract.py: see SOURCE.md" % (root, doc["info"]["version"]),
            "$ref": "#/$defs/" + root,
            "$defs": {k: defs[k] for k in sorted(defs)},
        }
        with open(os.path.join(here, out_name), "w", encoding="utf-8") as f:
            json.dump(schema, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print("%s: %d schemas" % (out_name, len(defs)))


if __name__ == "__main__":
    main()

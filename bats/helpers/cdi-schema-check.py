#!/usr/bin/python3
"""Validate CDI spec files against the CDI JSON schema (draft-07).

usage: cdi-schema-check.py SCHEMA_DIR FILE...
Prints "FILE: valid" or "FILE: invalid: reason" per file; exits 1 if any
file is invalid (an unparseable file is invalid).
"""
import json
import pathlib
import sys

import jsonschema


def main():
    schema_dir = pathlib.Path(sys.argv[1]).resolve()
    schema = json.loads((schema_dir / "schema.json").read_text())
    resolver = jsonschema.RefResolver(base_uri=schema_dir.as_uri() + "/", referrer=schema)
    validator = jsonschema.Draft7Validator(schema, resolver=resolver)
    status = 0
    for name in sys.argv[2:]:
        try:
            doc = json.loads(pathlib.Path(name).read_text())
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        except ValueError as e:
            errors = [e]
        if errors:
            status = 1
            print(f"{name}: invalid: {getattr(errors[0], 'message', errors[0])}")
        else:
            print(f"{name}: valid")
    return status


if __name__ == "__main__":
    sys.exit(main())

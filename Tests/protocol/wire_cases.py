"""The protocol's wire cases (wire-cases.json, beside this file) for the Python test suites: each
case's line as bytes, and whether a kit is excepted from it (the case's "except")."""
import json
import os

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'wire-cases.json')


def load():
    with open(PATH) as f:
        return json.load(f)


def line(case):
    """The case's line as bytes ("hex" or UTF-8 "line")."""
    return bytes.fromhex(case['hex']) if 'hex' in case else case['line'].encode('utf-8')


def cases(side, kit):
    """[(name, case)] of side ('server' or 'client') that apply to kit; the excepted ones drop out
    (their reason is in the file)."""
    return [(c['name'], c) for c in load()[side] if kit not in c.get('except', {})]

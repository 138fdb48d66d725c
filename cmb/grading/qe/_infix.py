"""Arithmetic in ATOMIC_POSITIONS: pw.x evaluates + - * / ^ and parentheses there (never executed as code)."""

from __future__ import annotations

import math
import re

from cmb.grading.qe._lexer import MAX_TOKEN_CHARS

_INFIX = re.compile(r"\s*(?:((?:\d+\.?\d*|\.\d+)(?:[eEdD][+-]?\d+)?)|(\S))")


def eval_infix(text: str) -> float | None:
    """The value of an arithmetic expression like '1/3' or '2*(1/8)', or None; never executes anything."""
    if len(text) > MAX_TOKEN_CHARS:
        return None
    tokens: list[str | float] = []
    pos = 0
    while pos < len(text):
        m = _INFIX.match(text, pos)
        if m is None:
            break
        number, op = m.groups()
        if number is not None:
            tokens.append(float(number.translate(str.maketrans("dD", "eE"))))
        elif op in "+-*/^()":
            tokens.append(op)
        else:
            return None
        pos = m.end()
    parser = _InfixParser(tokens)
    try:
        value = parser.expr(0)
    except (ValueError, ZeroDivisionError, OverflowError, IndexError, RecursionError):
        return None
    if parser.pos != len(tokens) or not math.isfinite(value):
        return None
    return value


class _InfixParser:
    MAX_DEPTH = 50

    def __init__(self, tokens: list[str | float]) -> None:
        self.tokens, self.pos = tokens, 0

    def peek(self) -> str | float | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str | float:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def expr(self, depth: int) -> float:
        if depth > self.MAX_DEPTH:
            raise ValueError("nested too deeply")
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            value = value + self.term(depth) if self.take() == "+" else value - self.term(depth)
        return value

    def term(self, depth: int) -> float:
        value = self.unary(depth)
        while self.peek() in ("*", "/"):
            value = value * self.unary(depth) if self.take() == "*" else value / self.unary(depth)
        return value

    def unary(self, depth: int) -> float:
        if self.peek() in ("+", "-"):
            sign = -1.0 if self.take() == "-" else 1.0
            return sign * self.unary(depth + 1)
        base = self.primary(depth)
        if self.peek() == "^":
            self.take()
            return math.pow(base, self.unary(depth + 1))
        return base

    def primary(self, depth: int) -> float:
        tok = self.take()
        if isinstance(tok, float):
            return tok
        if tok == "(":
            value = self.expr(depth + 1)
            if self.take() != ")":
                raise ValueError("unbalanced parentheses")
            return value
        raise ValueError(f"unexpected {tok!r}")

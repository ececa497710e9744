"""Corpus functions for what real numeric code does (issue 29): `raise` in staged branches
and loops, the truth value of numbers, ... Registered in the shared CORPUS, so they run every
way (plain, converted, traced on both executors, jax.jit)."""

from tests.corpus.registry import case


class InputTooLarge(ValueError):
    """A user-defined exception class."""


# --- raise in a staged branch or loop ------------------------------------------------------

@case(5, -3, 0)
def raise_in_staged_branch(n):
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    return n * 2


@case(3, 12, 0)
def raise_user_defined_after_a_print(n):
    if n > 1:
        print("checking", n)  # staged: printed when the branch runs, before the raise
        if n > 10:
            raise InputTooLarge("n is too large")
    return n + 1


@case(3, 0, -2)
def raise_class_and_raise_from(n):
    if n == 0:
        raise ZeroDivisionError("n is zero") from KeyError("n")
    if n < 0:
        raise ArithmeticError
    return 12 // n


@case(4, 10, 0)
def raise_in_staged_while(n):
    total = 0
    i = 0
    while i < n:
        if total > 20:
            raise OverflowError(f"total {total} exceeds 20 at i={i}")
        total += i
        i += 1
    return total


@case(9, 15, 7, 13)
def raise_after_a_loop_that_returns(n):
    for d in range(2, n):
        if n % d == 0:
            return d
    raise ValueError(f"{n} is prime")


@case(5, -1, 30)
def raise_in_elif_chain_with_else(n):
    if n < 0:
        raise ValueError("negative")
    elif n > 20:
        raise InputTooLarge(f"{n} > 20")
    else:
        r = n * n
    return r


# --- the truth value of a number ------------------------------------------------------------

@case(13, 0, 255)
def truth_while_n_popcount(n):
    count = 0
    while n:
        if n & 1:
            count += 1
        n >>= 1
    return count


@case((0, 5), (3, 0), (2, 4), (0, 0))
def truth_not_and_or_of_numbers(a, b):
    if not a:
        r = b or 7
    else:
        r = a and b
    return r


@case(0.0, 2.5, -1.5)
def truth_of_a_float(x):
    if x:
        return x * 2.0
    return 1.0


@case(48, 18, 7)
def truth_euclid_while_b(a):
    b = 30
    while b:
        a, b = b, a % b
    return a

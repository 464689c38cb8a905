#!/usr/bin/env python3
"""A Python client of nqueensd, standard library only (urllib and json).

    python3 example.py http://127.0.0.1:8080

It does what most callers need: a long count followed to its end, a list read page by page, a
problem read, and a conditional GET. The output is the same line for line as
../typescript/example.ts's (CI compares both to ../expected-output.txt), so it prints only what
does not change from run to run.
"""

import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class Answer:
    """One HTTP answer: status, headers and the body parsed as JSON (None when there is none)."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.json = json.loads(body) if body else None


def get(base, path, query=None, headers=None):
    """GET base+path?query. urllib raises for every status from 300 on; those are answers too."""
    url = base + path + ("?" + urllib.parse.urlencode(query, safe=",") if query else "")
    request = urllib.request.Request(url, headers={"Accept": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as refused:  # 304, 4xx and 5xx: the answer is in the error
        with refused:
            return Answer(refused.code, refused.headers, refused.read())


def columns(solution):
    """The 0-based column of the queen in each row, whatever the format the solution came in."""
    return " ".join(str(row if isinstance(row, int) else row.index("Q")) for row in solution)


def long_count(base, n):
    """A long count: the first request starts it and answers 202 at once (Prefer: respond-async);
    asking the Location again gives the progress, until the 200 with the count. A real client
    waits Retry-After seconds between asks; this one caps that at half a second to stay quick."""
    prefer = {"Prefer": "respond-async"}
    first = get(base, "/count", {"n": n}, prefer)
    if first.status != 202:
        raise RuntimeError(f"/count?n={n}: {first.status}, not 202")
    print(f"long count: 202 Accepted, Location {first.headers['Location']}, "
          f"Preference-Applied {first.headers['Preference-Applied']}")
    last = 0
    for _ in range(600):
        answer = get(base, first.headers["Location"], None, prefer)
        body = answer.json
        if answer.status == 200:
            print(f"long count: 200 n={body['n']} total={body['total']} unique={body['unique']}")
            return
        if answer.status != 202:
            raise RuntimeError(f"{body['title']}: {body['detail']}")
        # Still queued or running: progress only grows, and eta_s is null until it can be estimated.
        if not last <= body["progress"] <= 1 or body["status"] not in ("queued", "running"):
            raise RuntimeError(f"bad progress {body}")
        if body["elapsed_s"] < 0 or (body["eta_s"] is not None and body["eta_s"] < 0):
            raise RuntimeError(f"bad times {body}")
        last = body["progress"]
        time.sleep(min(int(answer.headers["Retry-After"]), 0.5))
    raise RuntimeError(f"/count?n={n} did not finish")


def pages(base, n, limit, count):
    """Paging: limit gives a page, and each page's next is the URL of the one after it."""
    answer = get(base, "/solve", {"n": n, "limit": limit})
    page = answer.json
    print(f"paging: /solve?n={n}&limit={limit} total={page['total']}")
    for i in range(1, count + 1):
        print(f"  page {i}: {' | '.join(columns(s) for s in page['solutions'])}")
        print(f"  next: {page['next'] if page['next'] is not None else 'null'}")
        if page["next"] is None or i == count:
            break
        page = get(base, page["next"]).json  # a relative URL: the same query and an `after` cursor


def show_problem(where, answer):
    """A problem (RFC 9457): type, title, status and detail always; param and limit when they apply."""
    problem = answer.json
    if answer.headers.get_content_type() != "application/problem+json":
        raise RuntimeError(f"{where}: {answer.status} without a problem")
    print(f"problem: {where} -> {answer.status} {problem['type']}")
    print(f"  title: {problem['title']}")
    print(f"  status: {problem['status']}")
    print(f"  detail: {problem['detail']}")
    print(f"  param: {problem.get('param', '-')}, limit: {problem.get('limit', '-')}")


def problems(base):
    """A 400 for a value that can never be valid, a 422 for one this server will not serve."""
    show_problem("/count?n=0", get(base, "/count", {"n": 0}))
    show_problem("/solve?n=17", get(base, "/solve", {"n": 17}))


def conditional(base):
    """Answers never change: keep the ETag, send it back in If-None-Match, get 304 and no body."""
    first = get(base, "/count", {"n": 8})
    etag = first.headers["ETag"]
    print(f"conditional: /count?n=8 -> {first.status} total={first.json['total']}, with an ETag")
    again = get(base, "/count", {"n": 8}, {"If-None-Match": etag})
    same = "true" if again.headers["ETag"] == etag else "false"
    print(f"conditional: If-None-Match -> {again.status}, same ETag: {same}")


def main(argv):
    if len(argv) != 2:
        print("usage: example.py BASE_URL", file=sys.stderr)
        return 2
    base = argv[1].rstrip("/")
    long_count(base, 13)
    pages(base, 8, 3, 2)
    problems(base)
    conditional(base)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

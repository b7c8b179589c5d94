"""A complete Callbreak bot for the Bhoos tournament protocol, standard library only.

Run:  python bhoos_bot.py 7000      then:  callbreak bot check http://127.0.0.1:7000
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RANKS = "23456789TJQK1"  # low to high; "1" is the ace. Cards are rank + suit: "1S", "TH", "9D".


def rank(card):
    return RANKS.index(card[0])


def legal_cards(hand, played):
    """The cards the bhoos rules allow: follow suit and head the trick (unless it was cut);
    when void, play a spade (beating any spade on the trick if you can); else anything."""
    if not played:
        return hand
    led = played[0][1]
    follow = [c for c in hand if c[1] == led]
    if follow:
        if led != "S" and any(c[1] == "S" for c in played):
            return follow  # the trick was cut: no need to head it
        top = max(rank(c) for c in played if c[1] == led)
        return [c for c in follow if rank(c) > top] or follow
    top = max((rank(c) for c in played if c[1] == "S"), default=-1)
    over = [c for c in hand if c[1] == "S" and rank(c) > top]
    return over or hand  # no spade, or none that beats the trick: any card


def bid(body):
    """Call one trick per ace, king and high spade: at least 1, at most 8."""
    n = sum(1 for c in body["cards"] if c[0] in "1K" or c in ("QS", "JS"))
    return min(8, max(1, n))


def play(body):
    """Lead the highest card; otherwise play the lowest legal card."""
    options = legal_cards(body["cards"], body["played"])
    return max(options, key=rank) if not body["played"] else min(options, key=rank)


class Bot(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep connections alive
    disable_nagle_algorithm = True  # or each answer waits ~40 ms for a delayed ACK

    def do_GET(self):  # GET /hi: the health check
        self.reply({"value": "hello"})

    def do_POST(self):  # POST /bid and POST /play
        try:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            value = bid(body) if self.path == "/bid" else play(body)
        except (ValueError, LookupError, TypeError) as e:  # not a request of the protocol
            return self.reply({"error": repr(e)}, 400)
        self.reply({"value": value})

    def reply(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 7000
    ThreadingHTTPServer(("127.0.0.1", port), Bot).serve_forever()

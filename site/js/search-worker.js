// The site search's worker: Material's own (named in ?worker=, set by js/search-query.js), with
// each query made into words first. Reviewers paste code, and Material reads lunr's syntax in
// it: "-1" means "without 1", quotes make words required, "a:b" names a field, "x^2" and "x~1"
// boost and blur. Here every character that is not a letter, digit or underscore separates
// words ("0.9" stays whole), so `getattr(self, "kv", None)` searches getattr, self, kv, None.
"use strict";

function words(query) {
  return query
    .replace(/(\d)\.(?=\d)/g, "$1\u0000")
    .replace(/[^\p{L}\p{N}_\u0000]+/gu, " ")
    .replace(/\u0000/g, ".")
    .trim();
}

// Registered before Material's worker is loaded, so this runs first on every message and
// Material's handler reads the words (one message object, shared by both listeners).
self.addEventListener("message", function (event) {
  var message = event.data;
  if (message && message.type === 2 && typeof message.data === "string")
    message.data = words(message.data);
});

importScripts(new URL(self.location.href).searchParams.get("worker"));

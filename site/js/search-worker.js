// The site search's worker: Material's own (named in ?worker=, set by js/search-query.js), with
// each query made into words first and the results ranked by page.
//
// Words. Reviewers paste code, and Material reads lunr's syntax in it: "-1" means "without 1",
// quotes make words required, "a:b" names a field, "x^2" and "x~1" boost and blur. Here every
// character that is not a letter, digit or underscore separates words ("0.9" stays whole), so
// `getattr(self, "kv", None)` searches getattr, self, kv, None.
//
// Inflections. The index holds each word's stem (mkdocs.yml: the search pipeline stems), so
// "counted", "counts" and "counter" are one word there. Material searches every query word as
// the start of a word ("id" finds every word that starts with id: identity, idle...), and lunr
// does not stem such a prefix, so "blocks" would miss "block". A query word the index knows
// (its stem, as the index's own pipeline makes it, is an indexed word) is searched as that stem,
// exactly: written "stem^1", which lunr reads as the word with its default weight and Material
// leaves without its wildcard. Any other word (one still being typed, say) stays a prefix; a
// stop word is dropped, as the index dropped it.
//
// Ranking. Material lists one group per page, ordered by the page's best entry: an example's
// section, full of the toy engine's shared words, outranks the page whose own text (title,
// statement, triggers, search terms) holds the query. Groups are ordered here by all of their
// entries' scores, the best counting whole, the next half, the third a third...
//
// The entry to cite. Material shows a page's group as the page, then the sections that score
// at least as much as the group's first item, and folds the rest under "N more on this page";
// the page's own entry usually scores highest, so the trigger the query matched was folded.
// A group that holds a matching trigger (or the impact or correction) now starts with the best
// of them, given the group's best score for display, so the result shows that trigger's words
// and links to its anchor. The pages are ranked before, on their entries' own scores.
//
// Suggestions. Material completes the word being typed with a word of a matching title, as the
// index holds it: a stem ("polici"). It is spelled here as a title spells it, the shortest
// such word that starts with what was typed ("policy").
"use strict";

var separator = null;
var index = null;
var docs = [];
var typed = "";
var spellings = null;

function words(query) {
  return query
    .replace(/(\d)\.(?=\d)/g, "$1\u0000")
    .replace(/[^\p{L}\p{N}_\u0000]+/gu, " ")
    .replace(/\u0000/g, ".")
    .trim();
}

function searched(word) {
  var stems = index.pipeline.runString(word.toLowerCase());
  if (!stems.length) return null; // a stop word
  var stem = stems[0];
  if (!Object.prototype.hasOwnProperty.call(index.invertedIndex, stem)) return word;
  var again = index.pipeline.runString(stem); // lunr runs the pipeline on "stem^1" once more
  return (again.length === 1 && again[0] === stem ? stem : word.toLowerCase()) + "^1";
}

function terms(query) {
  var text = words(query);
  if (!separator || !index) return text;
  return text
    .split(separator)
    .filter(function (word) { return word && word.trim(); })
    .map(searched)
    .filter(function (term) { return term !== null; })
    .join(" ");
}

function pageScore(group) {
  return group
    .map(function (item) { return item.score; })
    .sort(function (a, b) { return b - a; })
    .reduce(function (sum, score, at) { return sum + score / (at + 1); }, 0);
}

function ranked(groups) {
  return groups
    .map(function (group, at) { return { group: group, score: pageScore(group), at: at }; })
    .sort(function (a, b) { return b.score - a.score || a.at - b.at; })
    .map(function (scored) { return scored.group; });
}

var CITABLE = /^rules\/R\d+\/#(trigger-|impact$|correction$)/;

function citedFirst(group) {
  var best = null;
  var top = 0;
  group.forEach(function (item) {
    top = Math.max(top, item.score);
    if (CITABLE.test(item.location) && (!best || item.score > best.score)) best = item;
  });
  if (!best) return group;
  var shown = Object.assign({}, best, { score: top });
  return [shown].concat(group.filter(function (item) { return item !== best; }));
}

function titleSpellings() {
  if (spellings) return spellings;
  spellings = Object.create(null);
  docs.forEach(function (doc) {
    String(doc.title || "")
      .replace(/<[^>]*>/g, " ")
      .split(separator)
      .forEach(function (word) {
        if (!word || !word.trim()) return;
        var lower = word.toLowerCase();
        var stem = index.pipeline.runString(lower)[0];
        if (stem) (spellings[stem] = spellings[stem] || []).push(lower);
      });
  });
  return spellings;
}

function spelled(stem) {
  var words = (titleSpellings()[stem] || []).slice().sort(function (a, b) {
    return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  });
  var started = words.filter(function (word) { return word.indexOf(typed) === 0; });
  return started[0] || words[0] || stem;
}

// Registered before Material's worker is loaded, so this runs first on every message and
// Material's handler reads the words (one message object, shared by both listeners).
self.addEventListener("message", function (event) {
  var message = event.data;
  if (message && message.type === 0 && message.data && message.data.config) {
    separator = new RegExp(message.data.config.separator, "g");
    docs = message.data.docs || [];
    spellings = null;
  }
  if (message && message.type === 2 && typeof message.data === "string") {
    typed = message.data.split(/[\s-]+/).pop().toLowerCase();
    message.data = terms(message.data);
  }
});

// Material answers a query with postMessage (type 3: a result); its groups are ranked and its
// suggestions spelled first.
var post = self.postMessage;
self.postMessage = function (message) {
  var result = message && message.type === 3 ? message.data : null;
  if (result && Array.isArray(result.items)) result.items = ranked(result.items).map(citedFirst);
  if (result && Array.isArray(result.suggest) && index && separator)
    result.suggest = result.suggest.map(spelled);
  return post.apply(self, arguments);
};

importScripts(new URL(self.location.href).searchParams.get("worker"));

// The index Material builds on setup (lunr's Builder.build): its pipeline and words.
(function () {
  var build = self.lunr.Builder.prototype.build;
  self.lunr.Builder.prototype.build = function () {
    index = build.apply(this, arguments);
    return index;
  };
})();

// Long lines of code wrap instead of scrolling sideways (site/css/rules.css, "Every line
// visible"). This script decides where a line may wrap, so that it reads like code:
// - its rows after the first start under the line's own indentation, after a continuation
//   mark: each line gets its leading spaces as --rlt-indent (in a diff, those after the "-",
//   "+" or " " column);
// - it wraps between tokens, not inside a name: a <wbr> goes wherever a name or number meets
//   punctuation ("self.<wbr>waiting"), and an operator holding a "-" or "/" ("->", "//") is
//   kept whole (.rlt-keep), since a browser would break after its "-";
// - its first row is never empty: the indentation and the first token are one unbreakable
//   piece (.rlt-lead), so a token too long for what the indentation leaves breaks inside
//   itself rather than leaving the indentation alone on the first row.
// <wbr> and spans add no text: what is copied is the code as written. Without this script
// the rows start at the left edge, still marked. Lines are the spans pymdownx.highlight writes
// (line_spans); the practice's lines (site/js/practice.js) go through window.rltCodeLine.
(function () {
  "use strict";

  var LINES = ".highlight code > span[id^='__span-']";
  var WORD = /[\p{L}\p{N}_]/u;
  var SPACE = /\s/;
  // The longest run of punctuation kept whole: an operator ("->", "//", "**=", "=["), not a
  // ruler of "=" that must wrap.
  var KEEP = 4;
  
  function kind(character) {
    if (SPACE.test(character)) return " ";
    return WORD.test(character) ? "w" : "p";
  }

  function element(className, text) {
    var node = document.createElement("span");
    node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // End of the token starting at ``index``: a run of one kind ("w", "p" or " ").
  function tokenEnd(text, index) {
    var first = kind(text.charAt(index));
    var end = index;
    while (end < text.length && kind(text.charAt(end)) === first) end += 1;
    return end;
  }

  // The line's pieces of text, each with the class of the token span it is in (null: bare
  // text); null when the line is not flat (a token span holding elements).
  function segments(holder) {
    var found = [];
    for (var node = holder.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === Node.TEXT_NODE) {
        found.push({ className: null, text: node.data });
      } else if (node.nodeType === Node.ELEMENT_NODE && !node.firstElementChild) {
        if (!node.textContent) continue; // the line number (.linenos), kept where it is
        found.push({ className: node.className, text: node.textContent });
      } else {
        return null;
      }
    }
    return found;
  }

  function prepare(line, skip) {
    if (line.dataset.rltPrepared !== undefined) return line;
    line.dataset.rltPrepared = "";
    var text = line.textContent.replace(/\n$/, "");
    var spaces = /^ */.exec(text.slice(skip))[0].length;
    if (spaces && skip + spaces < text.length) {
      line.style.setProperty("--rlt-indent", spaces + "ch");
    }
    var holder = line.querySelector(":scope > .hll") || line;
    var pieces = text.trim() ? segments(holder) : null;
    if (!pieces) return line;
    // A line that is one token (a diff's "-" or "+" line) stays one span around the rest.
    var classes = pieces
      .filter(function (piece) {
        return piece.text.trim();
      })
      .map(function (piece) {
        return piece.className;
      });
    var whole = classes.every(function (name) {
      return name && name === classes[0];
    })
      ? classes[0]
      : null;
    if (whole) {
      pieces = [{ className: null, text: holder.textContent }];
    }
    var full = pieces
      .map(function (piece) {
        return piece.text;
      })
      .join("");

    // Where each character goes: the lead (the diff's column, the indentation and the first
    // token), a kept operator, or the line; and before which characters a <wbr> goes.
    var inkStart = skip + spaces;
    var leadEnd = (skip || spaces) && inkStart < text.length ? tokenEnd(text, inkStart) : 0;
    var keepOf = new Array(full.length + 1);
    var wbr = Object.create(null);
    var keeps = 0;
    for (var i = leadEnd; i < text.length; ) {
      var end = tokenEnd(text, i);
      var current = kind(text.charAt(i));
      if (current === "p" && end - i > 1 && end - i <= KEEP) {
        keeps += 1;
        for (var k = i; k < end; k += 1) keepOf[k] = keeps;
      }
      if (end < text.length && current !== " " && kind(text.charAt(end)) !== " ") wbr[end] = true;
      i = end;
    }
    if (leadEnd) wbr[leadEnd] = wbr[leadEnd] || kind(text.charAt(leadEnd)) !== " ";

    // Rebuild the line from its pieces, cut wherever a character's place changes.
    var fixed = Array.prototype.filter.call(holder.childNodes, function (node) {
      return node.nodeType === Node.ELEMENT_NODE && !node.textContent;
    });
    var out = document.createDocumentFragment();
    var lead = leadEnd ? element("rlt-lead") : null;
    var leadToken = leadEnd ? element("rlt-lead__token") : null;
    if (lead) {
      out.appendChild(lead);
    }
    var keepNode = null;
    var keepId = 0;
    var at = 0;
    pieces.forEach(function (piece) {
      var from = 0;
      while (from < piece.text.length) {
        var index = at + from;
        var to = from + 1;
        var place = placeOf(index);
        while (to < piece.text.length && !wbr[at + to] && placeOf(at + to) === place) to += 1;
        if (wbr[index] && index > 0) out.appendChild(document.createElement("wbr"));
        var part = piece.text.slice(from, to);
        var node = piece.className ? element(piece.className, part) : document.createTextNode(part);
        if (place === "indent") {
          lead.appendChild(node);
        } else if (place === "token") {
          if (!leadToken.parentNode) lead.appendChild(leadToken);
          leadToken.appendChild(node);
        } else if (place > 0) {
          if (keepId !== place) {
            keepNode = element("rlt-keep");
            keepId = place;
            out.appendChild(keepNode);
          }
          keepNode.appendChild(node);
        } else {
          out.appendChild(node);
        }
        from = to;
      }
      at += piece.text.length;
    });
    holder.textContent = "";
    fixed.forEach(function (node) {
      holder.appendChild(node);
    });
    if (whole) {
      var token = element(whole);
      token.appendChild(out);
      out = token;
    }
    holder.appendChild(out);
    return line;

    function placeOf(index) {
      if (index < leadEnd) return index < inkStart ? "indent" : "token";
      return keepOf[index] || 0;
    }
  }

  function prepareAll(root) {
    var lines = (root || document).querySelectorAll(LINES);
    for (var i = 0; i < lines.length; i += 1) {
      var line = lines[i];
      prepare(line, line.closest(".rlt-diff, .language-diff") ? 1 : 0);
    }
  }

  window.rltCodeLine = prepare;

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(function () {
      prepareAll(document);
    });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      prepareAll(document);
    });
  } else {
    prepareAll(document);
  }
})();

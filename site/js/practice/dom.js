// How "Spot the rule" shows things (site/js/practice.js): elements made with their text as
// text (textContent), never as HTML; code blocks as the site's own; title and explanation
// segments with their code spans.

export function element(tag, attributes, text) {
  var node = document.createElement(tag);
  Object.keys(attributes || {}).forEach(function (name) {
    node.setAttribute(name, attributes[name]);
  });
  if (text !== undefined) node.textContent = text;
  return node;
}

function span(kind, text) {
  return kind ? element("span", { class: kind }, text) : document.createTextNode(text);
}

// The program comes highlighted: ``item.lines``, one list of [class, text] tokens per line,
// made at build time by Pygments with the class names of the site's other code blocks
// (tools/rlt_rules/site/highlight.py). These functions only show, hide and mark lines.

// A code block as Material shows one: div.highlight > pre > code, focusable (it may scroll).
export function codeBlock(label) {
  var block = element("div", { class: "highlight" });
  var pre = element("pre");
  var code = element("code", { tabindex: "0", "aria-label": label });
  pre.appendChild(code);
  block.appendChild(pre);
  return { block: block, code: code };
}

// One line of code as the site's code blocks have it (pymdownx.highlight's line_spans): a
// span per line, a highlighted line's text inside a span.hll, so long lines wrap alike
// (rules.css). site/js/code-lines.js decides where it wraps, as for the pages' own code:
// its rows after the first start under its indentation (``skip``: characters before it, a
// diff's column), between tokens, never leaving the first row empty.
function codeLine(nodes, highlighted, text, skip) {
  var line = element("span", { class: "rlt-line" });
  var holder = highlighted ? element("span", { class: "hll" }) : line;
  nodes.forEach(function (node) {
    holder.appendChild(node);
  });
  holder.appendChild(document.createTextNode("\n"));
  if (holder !== line) line.appendChild(holder);
  if (window.rltCodeLine) {
    window.rltCodeLine(line, skip);
  } else {
    var spaces = /^ */.exec(text.slice(skip))[0].length;
    if (spaces && spaces < text.length - skip) line.style.setProperty("--rlt-indent", spaces + "ch");
  }
  return line;
}

// The program, numbered, its ``marked`` lines (1-based) highlighted as Pygments' hl_lines.
export function showProgram(code, lines, marked) {
  var highlighted = Object.create(null);
  (marked || []).forEach(function (number) {
    highlighted[number] = true;
  });
  code.textContent = "";
  lines.forEach(function (tokens, index) {
    var nodes = tokens.map(function (token) {
      return span(token[0], token[1]);
    });
    var text = tokens
      .map(function (token) {
        return token[1];
      })
      .join("");
    code.appendChild(codeLine(nodes, highlighted[index + 1], text, 0));
  });
}

export function showDiff(code, diff) {
  diff.split("\n").forEach(function (line) {
    var first = line.charAt(0);
    var kind = first === "-" ? "gd" : first === "+" ? "gi" : first === "@" ? "gu" : "";
    code.appendChild(codeLine([span(kind, line)], false, line, 1));
  });
}

// [kind, text] segments (a title, an explanation): code spans as <code>, the rest as written.
export function appendSegments(node, segments) {
  segments.forEach(function (segment) {
    node.appendChild(
      segment[0] === "code" ? element("code", {}, segment[1]) : document.createTextNode(segment[1])
    );
  });
  return node;
}

export function paragraph(segments, className) {
  return appendSegments(element("p", { class: className }), segments);
}

// 1, 2 and 3 · 4–9 for runs.
export function listing(numbers) {
  var runs = [];
  numbers.forEach(function (number) {
    var last = runs[runs.length - 1];
    if (last && number === last[1] + 1) last[1] = number;
    else runs.push([number, number]);
  });
  var parts = runs.map(function (run) {
    return run[0] === run[1] ? String(run[0]) : run[0] + "–" + run[1];
  });
  return parts.length > 1 ? parts.slice(0, -1).join(", ") + " and " + parts[parts.length - 1] : parts[0];
}

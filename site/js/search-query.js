// Loaded before Material's bundle: the search starts js/search-worker.js, which makes a query
// into words before Material's own worker (named in ?worker=) reads it.
(function () {
  "use strict";
  var element = document.getElementById("__config");
  if (!element) return;
  var config = JSON.parse(element.textContent);
  if (!config.search) return;
  var base = new URL(config.base.replace(/\/?$/, "/"), location.href);
  var worker = new URL("js/search-worker.js", base);
  worker.searchParams.set("worker", new URL(config.search, location.href).href);
  config.search = worker.href;
  element.textContent = JSON.stringify(config);
})();

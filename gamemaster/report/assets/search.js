// The search across the studio. The index (search/index.js) was analysed by the build
// with recall's own pipeline; a query's words are looked up in its vocabulary (folded
// word → its terms, one per language it was written in), so "Knochentürme" and
// "knochenturm" ask for the same term. Every word must match; a word matches a document
// holding any of its terms. Results are built with textContent only: nothing from the
// studio is ever read as HTML.
(function () {
  "use strict";
  var index = window.GM_SEARCH;
  var input = document.getElementById("q");
  var list = document.getElementById("results");
  var hits = document.getElementById("hits");
  if (!index || !input || !list) return;
  var kinds = JSON.parse(list.getAttribute("data-kinds"));
  var stop = {};
  index.stopwords.forEach(function (w) { stop[w] = true; });
  var terms = Object.keys(index.postings);

  function fold(text) {  // Python's NFKC + casefold, as far as the studio's languages need it
    return text.normalize("NFKC").toLowerCase().replace(/ß/g, "ss");
  }

  function termsOf(word) {
    if (Object.prototype.hasOwnProperty.call(index.vocabulary, word)) return index.vocabulary[word];
    var best = null;  // a form the studio never wrote: the longest term it starts with
    terms.forEach(function (t) {
      if (t.length >= 3 && word.indexOf(t) === 0 && word.length - t.length <= 3 && (!best || t.length > best.length)) best = t;
    });
    return [best || word];
  }

  function analyse(query) {
    var words = fold(query).match(/[\p{L}\p{N}\p{M}]+/gu) || [];
    var found = [];
    words.forEach(function (w) {
      if (w.length < 2 || stop[w]) return;
      var t = termsOf(w);
      var key = t.join(" ");
      if (!found.some(function (f) { return f.join(" ") === key; })) found.push(t);
    });
    return found;
  }

  function search(query) {
    var wanted = analyse(query);
    if (!wanted.length) return null;
    var scores = null;
    wanted.forEach(function (group) {
      var next = {};
      group.forEach(function (t) {
        (index.postings[t] || []).forEach(function (p) {
          if (scores === null || scores[p[0]] !== undefined) {
            next[p[0]] = (next[p[0]] !== undefined ? next[p[0]] : (scores ? scores[p[0]] : 0)) + p[1] * index.idf[t];
          }
        });
      });
      scores = next;
    });
    return Object.keys(scores).map(Number).sort(function (a, b) { return scores[b] - scores[a] || a - b; });
  }

  function element(tag, css, text) {
    var node = document.createElement(tag);
    if (css) node.className = css;
    if (text) node.textContent = text;
    return node;
  }

  function show() {
    var found = search(input.value);
    list.textContent = "";
    if (found === null) { hits.textContent = ""; return; }
    hits.textContent = found.length ? found.length + " " + hits.getAttribute("data-label") : hits.getAttribute("data-none");
    found.slice(0, 200).forEach(function (n) {
      var doc = index.docs[n];
      var item = element("li", "result k-" + doc[0]);
      item.appendChild(element("span", "badge kind", kinds[doc[0]] || doc[0]));
      var a = element("a", "", doc[1]);
      a.href = doc[2];
      item.appendChild(document.createTextNode(" "));
      item.appendChild(a);
      item.appendChild(element("p", "muted", doc[3]));
      list.appendChild(item);
    });
  }

  var given = new URLSearchParams(location.search).get("q");
  if (given) input.value = given;
  input.addEventListener("input", show);
  show();
})();

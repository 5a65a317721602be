// The memory stream's filters and search. The rows are rendered by the build; this only
// hides and shows them, reading the data embedded as JSON (never as HTML).
(function () {
  "use strict";
  var form = document.querySelector(".filters");
  var source = document.getElementById("memory-data");
  if (!form || !source) return;
  var memories = JSON.parse(source.textContent);
  var rows = {};
  document.querySelectorAll(".stream .mem").forEach(function (row) { rows[row.id] = row; });
  var count = form.querySelector("[data-count]");
  var shownLabel = document.querySelector(".stream").getAttribute("data-shown-label");

  function value(name) { return form.querySelector('[data-filter="' + name + '"]').value; }

  function apply() {
    var words = value("text").toLowerCase().split(/\s+/).filter(Boolean);
    var type = value("type"), tag = value("tag"), day = value("day"), least = Number(value("importance") || 0);
    var shown = 0;
    memories.forEach(function (m) {
      var text = m.text.toLowerCase();
      var visible = (!type || m.type === type) && (!tag || m.tags.indexOf(tag) !== -1) &&
        (!day || String(m.day) === day) && m.importance >= least &&
        words.every(function (w) { return text.indexOf(w) !== -1; });
      if (rows[m.id]) rows[m.id].hidden = !visible;
      if (visible) shown += 1;
    });
    count.textContent = shown + " / " + memories.length + " " + shownLabel;
  }

  // A link to a memory the filters hide clears them, so the target is always in view.
  function reveal(id) {
    var row = id && rows[id];
    if (row && row.hidden) {
      form.reset();
      apply();
      row.scrollIntoView();
    }
  }
  function revealHash() { reveal(decodeURIComponent(location.hash.slice(1))); }

  // Clicking such a link reveals its row before the browser jumps to it: hashchange comes a
  // task later, and until then the jump would land on a hidden row.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest('a[href^="#"]');
    if (link) reveal(decodeURIComponent(link.getAttribute("href").slice(1)));
  });

  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("reset", function () { setTimeout(apply, 0); });
  window.addEventListener("hashchange", revealHash);
  apply();
  revealHash();
})();

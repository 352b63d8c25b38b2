// The single-run report's table: filters, sorting, and a click that opens a case's detail.
// It only shows, hides and reorders elements the page already holds; it never builds HTML.
(function () {
  "use strict";
  var table = document.getElementById("cases");
  if (!table) return;
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var fStatus = document.getElementById("f-status");
  var fCheck = document.getElementById("f-check");
  var fCategory = document.getElementById("f-category");
  var fText = document.getElementById("f-text");
  var shown = document.getElementById("shown-count");
  var empty = document.getElementById("detail-empty");

  function matches(tr) {
    var st = tr.getAttribute("data-status");
    var want = fStatus.value;
    if (want === "not-pass" ? st === "pass" : want !== "all" && st !== want) return false;
    var failing = tr.getAttribute("data-failing").split(" ");
    if (fCheck.value && failing.indexOf(fCheck.value) < 0) return false;
    if (fCategory.value && tr.getAttribute("data-category") !== fCategory.value) return false;
    var text = fText.value.trim().toLowerCase();
    return !text || tr.getAttribute("data-k-id").toLowerCase().indexOf(text) >= 0;
  }

  function applyFilters() {
    var n = 0;
    rows.forEach(function (tr) {
      tr.hidden = !matches(tr);
      if (!tr.hidden) n += 1;
    });
    shown.textContent = n + " of " + rows.length;
  }

  function sortBy(th) {
    var key = "data-k-" + th.getAttribute("data-key");
    var numeric = th.getAttribute("data-type") === "num";
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th[data-key]").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    function value(tr) {
      var v = tr.getAttribute(key);
      if (!numeric) return v.toLowerCase();
      return v === "" ? -Infinity : parseFloat(v);  // unscored (errors) sort below every score
    }
    var indexed = rows.map(function (tr, i) { return [value(tr), i, tr]; });
    indexed.sort(function (a, b) {
      if (a[0] < b[0]) return -dir;
      if (a[0] > b[0]) return dir;
      return a[1] - b[1];  // stable
    });
    rows = indexed.map(function (t) { return t[2]; });
    var frag = document.createDocumentFragment();  // one reflow, not one per row
    rows.forEach(function (tr) { frag.appendChild(tr); });
    tbody.appendChild(frag);
  }

  function openRow(tr) {
    rows.forEach(function (r) { r.classList.remove("selected"); r.setAttribute("aria-selected", "false"); });
    document.querySelectorAll("article.detail").forEach(function (d) { d.hidden = true; });
    tr.classList.add("selected");
    tr.setAttribute("aria-selected", "true");
    var detail = document.getElementById(tr.getAttribute("data-detail"));
    if (detail) detail.hidden = false;
    if (empty) empty.hidden = true;
  }

  [fStatus, fCheck, fCategory].forEach(function (el) { el.addEventListener("change", applyFilters); });
  fText.addEventListener("input", applyFilters);
  table.querySelectorAll("th[data-key] button").forEach(function (b) {
    b.addEventListener("click", function () { sortBy(b.parentNode); });
  });
  tbody.addEventListener("click", function (e) {
    var tr = e.target.closest("tr.case-row");
    if (tr) openRow(tr);
  });
  tbody.addEventListener("keydown", function (e) {
    var tr = e.target.closest("tr.case-row");
    if (tr && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); openRow(tr); }
  });
  applyFilters();
})();

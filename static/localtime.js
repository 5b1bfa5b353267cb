// Rewrites <time datetime="…" data-relative="…"> into the reader's own time. Within the hour the
// server has said it ("in 9 minutes", in data-relative); beyond, this script says the day and the
// clock time in the browser's time zone and locale ("tomorrow 09:30"), which only the browser
// knows. The server's UTC text stays when this does not run.
(function () {
  "use strict";

  function sameDay(a, b) {
    return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  }

  function localDay(when, now) {
    var clock = when.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
    if (sameDay(when, now)) return "today " + clock;
    var tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    if (sameDay(when, tomorrow)) return "tomorrow " + clock;
    return when.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" }) + " " + clock;
  }

  var now = new Date();
  document.querySelectorAll("time[data-relative]").forEach(function (node) {
    var when = new Date(node.getAttribute("datetime"));
    if (isNaN(when)) return;
    node.title = when.toLocaleString();
    node.textContent = node.dataset.relative || localDay(when, now);
  });
})();

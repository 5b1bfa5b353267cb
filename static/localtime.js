// Rewrites <time datetime="…" data-relative> into the reader's own time: "in 9 minutes",
// "tomorrow 09:30", in the browser's locale. The server's UTC text stays when this does not run.
(function () {
  "use strict";
  var MINUTE = 60 * 1000;

  function sameDay(a, b) {
    return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
  }

  function say(when, now) {
    var minutes = Math.round((when - now) / MINUTE);
    var clock = when.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
    if (minutes <= 0) return "now";
    if (minutes < 60) return "in " + minutes + " minute" + (minutes === 1 ? "" : "s");
    if (sameDay(when, now)) return "today " + clock;
    var tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    if (sameDay(when, tomorrow)) return "tomorrow " + clock;
    return when.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" }) + " " + clock;
  }

  var now = new Date();
  document.querySelectorAll("time[data-relative]").forEach(function (node) {
    var when = new Date(node.getAttribute("datetime"));
    if (isNaN(when.getTime())) return;
    node.title = when.toLocaleString();
    node.textContent = say(when, now);
  });
})();

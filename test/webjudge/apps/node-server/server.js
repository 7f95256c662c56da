// A tiny app with its own server: serves one page on $PORT.
const http = require('http');
const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Greeter</title></head>
<body><h1>Greeter</h1><label for="name">Name</label><input id="name"><button id="go">Greet</button><p id="out"></p>
<script>document.getElementById('go').onclick = () => { document.getElementById('out').textContent = 'Hello, ' + document.getElementById('name').value + '!'; };</script>
</body></html>`;
http
  .createServer((req, res) => {
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    res.writeHead(404).end('not found');
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log(`listening on ${process.env.PORT}`));

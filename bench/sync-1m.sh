#!/usr/bin/env bash
# Measures the 1,000,000-invoice Sandbox sync through a running server: wall time and peak RSS.
set -u
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$(dirname "$0")/.."
npm run build >/dev/null

DATABASE_URL="$WORK"/db.sqlite PORT=18096 LOG_LEVEL=warn node dist/main.js > "$WORK"/out.log 2>&1 &
PID=$!
for i in $(seq 1 100); do grep -q curl "$WORK"/out.log 2>/dev/null && break; sleep 0.2; done
H=$(grep -o 'Authorization: Basic [^"]*' "$WORK"/out.log); B=localhost:18096
C=$(curl -s -H "$H" -H 'content-type: application/json' -d '{"name":"Big Co"}' $B/companies | python3 -c 'import sys,json;print(json.load(sys.stdin)["id"])')
python3 - "$C" > "$WORK"/settings.json <<'PY'
import json,sys
types=['accountTransactions','balanceSheet','bankAccounts','bankTransactions','billCreditNotes','billPayments','bills','cashFlowStatement','chartOfAccounts','company','creditNotes','customers','directCosts','directIncomes','invoices','itemReceipts','items','journalEntries','journals','paymentMethods','payments','profitAndLoss','purchaseOrders','salesOrders','suppliers','taxRates','trackingCategories','transfers']
print(json.dumps({"companyId":sys.argv[1],"settings":[{"dataType":t,"fetchOnFirstLink":t=='invoices',"syncSchedule":24,"syncOrder":i} for i,t in enumerate(types)]}))
PY
curl -s -o /dev/null -H "$H" -H 'content-type: application/json' -d @"$WORK"/settings.json $B/companies/$C/syncSettings
CONN=$(curl -s -H "$H" -H 'content-type: application/json' -d '{"platformKey":"mqjo"}' $B/companies/$C/connections | python3 -c 'import sys,json;print(json.load(sys.stdin)["id"])')
PEAK=0
curl -s -o /dev/null -XPUT -H "$H" -H 'content-type: application/json' -d '{"invoices":"1000000"}' $B/companies/$C/connections/$CONN/authorization
while true; do
  RSS=$(awk '/VmRSS/{print $2}' /proc/$PID/status); [ "$RSS" -gt "$PEAK" ] && PEAK=$RSS
  S=$(curl -s -H "$H" $B/companies/$C/dataStatus | python3 -c 'import sys,json;print(json.load(sys.stdin)["invoices"]["currentStatus"])')
  [ "$S" = "Complete" -o "$S" = "FetchError" ] && break
  sleep 0.5
done
curl -s -H "$H" "$B/companies/$C/data/history?query=dataType%3Dinvoices" | python3 -c 'import sys,json,datetime;r=json.load(sys.stdin)["results"][0];p=lambda s:datetime.datetime.fromisoformat(s.replace("Z","+00:00"));print("status",r["status"],"sync seconds",(p(r["completed"])-p(r["requested"])).total_seconds())'
echo "peak RSS MB $((PEAK/1024))"
curl -s -H "$H" "$B/companies/$C/data/invoices?pageSize=1" | python3 -c 'import sys,json;print("invoices",json.load(sys.stdin)["totalResults"])'
kill $PID; sleep 1; du -sh "$WORK"/db.sqlite*

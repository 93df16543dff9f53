/**
 * synthetic200 — a catalog of 200 realistic tools across 20 services (issue tracker, mail,
 * calendar, payments, cloud, …), for measuring what a large catalog costs a client and for
 * testing search over it (packages/framework/src/catalog/search.test.ts; bench/codemode.ts).
 *
 * The tools do nothing real: each answers with its name and the arguments it got (as text and
 * as structured content), so calls are cheap and their results are predictable.
 *
 * Try it: `mcp-factory -p synthetic200`.
 */
import type { JsonSchemaObject, PluginServer } from '@mcpbox/framework';

export const description =
  '200 synthetic tools over 20 services, for search and code-mode benchmarks.';

/**
 * One tool: name, title, description, parameters. Parameters read `name:type:description`,
 * separated by `|`; `name?` is optional; type is string, integer, number, boolean or string[].
 */
type Spec = readonly [name: string, title: string, description: string, params: string];

const SERVICES: Record<string, readonly Spec[]> = {
  issues: [
    [
      'issues_create',
      'Create issue',
      'Open a new issue in a project tracker with a title, body and labels.',
      'project:string:Project key|title:string:Short summary of the problem|body?:string:Details in Markdown|labels?:string[]:Labels to attach',
    ],
    [
      'issues_get',
      'Get issue',
      'Fetch one issue by its number, with status, assignee and labels.',
      'project:string:Project key|number:integer:Issue number',
    ],
    [
      'issues_list',
      'List issues',
      'List issues of a project, filtered by state, label or assignee.',
      'project:string:Project key|state?:string:open, closed or all|label?:string:Only issues with this label|assignee?:string:Only issues assigned to this user',
    ],
    [
      'issues_update',
      'Update issue',
      'Change the title, body or state of an existing issue.',
      'project:string:Project key|number:integer:Issue number|title?:string:New title|state?:string:open or closed',
    ],
    [
      'issues_comment',
      'Comment on issue',
      'Add a comment to the discussion thread of an issue.',
      'project:string:Project key|number:integer:Issue number|text:string:The comment in Markdown',
    ],
    [
      'issues_assign',
      'Assign issue',
      'Assign an issue to a team member so they own the work.',
      'project:string:Project key|number:integer:Issue number|user:string:Username of the assignee',
    ],
    [
      'issues_close',
      'Close issue',
      'Close an issue as completed or as not planned, with a reason.',
      'project:string:Project key|number:integer:Issue number|reason?:string:completed or not_planned',
    ],
    [
      'issues_search',
      'Search issues',
      'Full-text search across issues and their comments in every project.',
      'query:string:Words to look for|limit?:integer:Most results to return',
    ],
    [
      'issues_add_label',
      'Label issue',
      'Attach a label such as bug or enhancement to an issue.',
      'project:string:Project key|number:integer:Issue number|label:string:Label name',
    ],
    [
      'issues_link',
      'Link issues',
      'Mark one issue as blocking, duplicating or relating to another.',
      'project:string:Project key|from:integer:Issue number|to:integer:Other issue number|relation:string:blocks, duplicates or relates',
    ],
  ],
  repo: [
    [
      'repo_create_branch',
      'Create branch',
      'Create a git branch in a repository from a base commit or branch.',
      'repo:string:owner/name|branch:string:New branch name|from?:string:Base branch or commit SHA',
    ],
    [
      'repo_list_branches',
      'List branches',
      'List the branches of a git repository with their head commits.',
      'repo:string:owner/name',
    ],
    [
      'repo_get_file',
      'Get file contents',
      'Read a file from a git repository at a branch, tag or commit.',
      'repo:string:owner/name|path:string:Path inside the repository|ref?:string:Branch, tag or SHA',
    ],
    [
      'repo_commit_file',
      'Commit file',
      'Create or replace a file in a repository as a new commit.',
      'repo:string:owner/name|path:string:File path|content:string:New file content|message:string:Commit message|branch:string:Branch to commit on',
    ],
    [
      'repo_list_commits',
      'List commits',
      'Show the commit history of a branch, newest first.',
      'repo:string:owner/name|branch?:string:Branch name|author?:string:Only commits by this author',
    ],
    [
      'repo_open_pull_request',
      'Open pull request',
      'Propose merging a branch by opening a pull request for review.',
      'repo:string:owner/name|head:string:Branch with the changes|base:string:Branch to merge into|title:string:Pull request title|body?:string:Description',
    ],
    [
      'repo_merge_pull_request',
      'Merge pull request',
      'Merge an approved pull request with merge, squash or rebase.',
      'repo:string:owner/name|number:integer:Pull request number|method?:string:merge, squash or rebase',
    ],
    [
      'repo_review_pull_request',
      'Review pull request',
      'Approve a pull request or request changes, with review comments.',
      'repo:string:owner/name|number:integer:Pull request number|verdict:string:approve or request_changes|comment?:string:Review text',
    ],
    [
      'repo_compare',
      'Compare refs',
      'Show the diff between two branches, tags or commits.',
      'repo:string:owner/name|base:string:Older ref|head:string:Newer ref',
    ],
    [
      'repo_create_release',
      'Create release',
      'Tag a version and publish release notes for it.',
      'repo:string:owner/name|tag:string:Version tag like v1.2.0|notes?:string:Release notes',
    ],
  ],
  mail: [
    [
      'mail_send',
      'Send email',
      'Send an email message to one or more recipients.',
      'to:string[]:Recipient addresses|subject:string:Subject line|body:string:Message text|cc?:string[]:Copy recipients',
    ],
    [
      'mail_list_inbox',
      'List inbox',
      'List recent messages in the inbox, optionally only unread ones.',
      'unread_only?:boolean:Only unread messages|limit?:integer:Most messages to return',
    ],
    [
      'mail_read',
      'Read email',
      'Read the full content of one email message by id.',
      'message_id:string:Message id',
    ],
    [
      'mail_search',
      'Search email',
      'Search the mailbox by sender, subject words or date range.',
      'query:string:Search words|from?:string:Sender address|since?:string:ISO date',
    ],
    [
      'mail_reply',
      'Reply to email',
      'Reply to a received email, keeping it in the same thread.',
      'message_id:string:Message to answer|body:string:Reply text|reply_all?:boolean:Answer every recipient',
    ],
    [
      'mail_forward',
      'Forward email',
      'Forward an email with its attachments to other people.',
      'message_id:string:Message to forward|to:string[]:New recipients|note?:string:Text added on top',
    ],
    [
      'mail_archive',
      'Archive email',
      'Move a message out of the inbox into the archive.',
      'message_id:string:Message id',
    ],
    [
      'mail_mark_read',
      'Mark as read',
      'Mark messages as read or unread.',
      'message_ids:string[]:Message ids|read:boolean:true for read, false for unread',
    ],
    [
      'mail_create_draft',
      'Create draft',
      'Save an email as a draft to finish and send later.',
      'to:string[]:Recipients|subject:string:Subject|body:string:Draft text',
    ],
    [
      'mail_download_attachment',
      'Download attachment',
      'Save an attachment of an email message to a file.',
      'message_id:string:Message id|attachment_id:string:Attachment id|path:string:Where to save it',
    ],
  ],
  calendar: [
    [
      'calendar_create_event',
      'Create event',
      'Schedule a meeting or appointment on the calendar and invite attendees.',
      'title:string:Event title|start:string:Start time, ISO 8601|end:string:End time, ISO 8601|attendees?:string[]:Email addresses to invite|location?:string:Room or address',
    ],
    [
      'calendar_list_events',
      'List events',
      'List calendar events between two dates.',
      'from:string:Start of the range|to:string:End of the range|calendar?:string:Calendar id',
    ],
    [
      'calendar_find_free_slot',
      'Find free time',
      'Find a time when all the given people are available to meet.',
      'attendees:string[]:People who must attend|duration_minutes:integer:Length of the meeting|within_days?:integer:How far ahead to look',
    ],
    [
      'calendar_update_event',
      'Reschedule event',
      'Move an event to another time or change its details.',
      'event_id:string:Event id|start?:string:New start|end?:string:New end|title?:string:New title',
    ],
    [
      'calendar_cancel_event',
      'Cancel event',
      'Cancel a scheduled event and notify the attendees.',
      'event_id:string:Event id|message?:string:Note to attendees',
    ],
    [
      'calendar_respond',
      'Respond to invitation',
      'Accept, decline or tentatively accept a meeting invitation.',
      'event_id:string:Event id|response:string:accept, decline or tentative',
    ],
    [
      'calendar_list_calendars',
      'List calendars',
      'List the calendars the user can see, with their colours and owners.',
      '',
    ],
    [
      'calendar_set_reminder',
      'Set reminder',
      'Add a reminder notification before an event starts.',
      'event_id:string:Event id|minutes_before:integer:When to remind',
    ],
    [
      'calendar_create_recurring',
      'Create recurring event',
      'Create an event that repeats daily, weekly or monthly.',
      'title:string:Event title|start:string:First occurrence|rule:string:RRULE such as FREQ=WEEKLY;BYDAY=MO',
    ],
    [
      'calendar_out_of_office',
      'Set out of office',
      'Block a period as out of office and decline meetings during it.',
      'from:string:First day away|to:string:Last day away|message?:string:Automatic reply',
    ],
  ],
  chat: [
    [
      'chat_post_message',
      'Post message',
      'Post a message to a team chat channel.',
      'channel:string:Channel name or id|text:string:Message text|thread_id?:string:Reply in this thread',
    ],
    [
      'chat_list_channels',
      'List channels',
      'List chat channels the bot is a member of.',
      'include_private?:boolean:Include private channels',
    ],
    [
      'chat_history',
      'Channel history',
      'Read the recent messages of a chat channel.',
      'channel:string:Channel name or id|limit?:integer:Most messages',
    ],
    [
      'chat_send_direct',
      'Send direct message',
      'Send a private direct message to one user.',
      'user:string:Username|text:string:Message text',
    ],
    [
      'chat_react',
      'Add reaction',
      'Add an emoji reaction to a chat message.',
      'channel:string:Channel|message_id:string:Message id|emoji:string:Emoji name',
    ],
    [
      'chat_create_channel',
      'Create channel',
      'Create a new public or private chat channel.',
      'name:string:Channel name|private?:boolean:Make it private|topic?:string:Channel topic',
    ],
    [
      'chat_invite',
      'Invite to channel',
      'Invite users to join a chat channel.',
      'channel:string:Channel|users:string[]:Usernames',
    ],
    [
      'chat_set_status',
      'Set status',
      'Set the user status text and emoji shown in chat.',
      'text:string:Status text|emoji?:string:Status emoji|expires_minutes?:integer:Clear after',
    ],
    [
      'chat_search_messages',
      'Search messages',
      'Search all chat messages for words or phrases.',
      'query:string:Search words|channel?:string:Only this channel',
    ],
    [
      'chat_pin_message',
      'Pin message',
      'Pin an important message to the top of a channel.',
      'channel:string:Channel|message_id:string:Message id',
    ],
  ],
  files: [
    [
      'files_upload',
      'Upload file',
      'Upload a local file to cloud storage.',
      'local_path:string:File on this machine|folder:string:Destination folder',
    ],
    [
      'files_download',
      'Download file',
      'Download a file from cloud storage to disk.',
      'file_id:string:File id|local_path:string:Where to save it',
    ],
    [
      'files_list_folder',
      'List folder',
      'List the files and subfolders of a cloud storage folder.',
      'folder:string:Folder path',
    ],
    [
      'files_share',
      'Share file',
      'Share a file with people and give them view or edit access.',
      'file_id:string:File id|emails:string[]:People to share with|role:string:viewer or editor',
    ],
    [
      'files_move',
      'Move file',
      'Move or rename a file in cloud storage.',
      'file_id:string:File id|new_path:string:New folder and name',
    ],
    ['files_delete', 'Delete file', 'Move a file to the trash.', 'file_id:string:File id'],
    [
      'files_search',
      'Search files',
      'Find files in cloud storage by name or content.',
      'query:string:Words in the name or content|type?:string:pdf, doc, sheet, image',
    ],
    [
      'files_create_folder',
      'Create folder',
      'Create a new folder in cloud storage.',
      'path:string:Folder path',
    ],
    [
      'files_get_link',
      'Get share link',
      'Create a public link anyone can use to download a file.',
      'file_id:string:File id|expires_days?:integer:Link lifetime',
    ],
    [
      'files_list_versions',
      'File versions',
      'List earlier versions of a file and restore one.',
      'file_id:string:File id',
    ],
  ],
  db: [
    [
      'db_query',
      'Run SQL query',
      'Run a read-only SQL SELECT against the database and return rows.',
      'sql:string:The SELECT statement|params?:string[]:Bound parameters',
    ],
    [
      'db_execute',
      'Execute SQL',
      'Run an INSERT, UPDATE or DELETE statement and return affected rows.',
      'sql:string:The statement|params?:string[]:Bound parameters',
    ],
    [
      'db_list_tables',
      'List tables',
      'List the tables of a database schema.',
      'schema?:string:Schema name',
    ],
    [
      'db_describe_table',
      'Describe table',
      'Show the columns, types, indexes and constraints of a table.',
      'table:string:Table name',
    ],
    [
      'db_explain',
      'Explain query plan',
      'Show how the database would execute a query, to find slow parts.',
      'sql:string:The query',
    ],
    [
      'db_backup',
      'Back up database',
      'Take a snapshot backup of the whole database.',
      'label?:string:Name for the backup',
    ],
    [
      'db_restore',
      'Restore backup',
      'Restore the database from an earlier backup.',
      'backup_id:string:Backup id',
    ],
    [
      'db_create_index',
      'Create index',
      'Add an index on table columns to speed up queries.',
      'table:string:Table|columns:string[]:Columns to index|unique?:boolean:Unique index',
    ],
    [
      'db_list_connections',
      'Active connections',
      'List the open database connections and their running queries.',
      '',
    ],
    [
      'db_export_csv',
      'Export table as CSV',
      'Export the rows of a table or query to a CSV file.',
      'sql:string:Query whose rows to export|path:string:CSV file to write',
    ],
  ],
  payments: [
    [
      'payments_create_charge',
      'Charge card',
      'Charge a customer credit card for an amount.',
      'customer_id:string:Customer|amount_cents:integer:Amount in cents|currency:string:ISO currency code',
    ],
    [
      'payments_refund',
      'Refund payment',
      'Refund all or part of an earlier payment to the customer.',
      'payment_id:string:Payment id|amount_cents?:integer:Partial amount',
    ],
    [
      'payments_list_transactions',
      'List transactions',
      'List payments and refunds in a date range.',
      'from:string:Start date|to:string:End date|status?:string:succeeded, failed or refunded',
    ],
    [
      'payments_create_invoice',
      'Create invoice',
      'Create and send an invoice to a customer for line items.',
      'customer_id:string:Customer|items:string[]:Line items as description:amount|due_days?:integer:Days until due',
    ],
    [
      'payments_get_balance',
      'Account balance',
      'Show the available and pending balance of the merchant account.',
      '',
    ],
    [
      'payments_create_customer',
      'Create customer',
      'Register a new paying customer with email and name.',
      'email:string:Customer email|name:string:Full name',
    ],
    [
      'payments_create_subscription',
      'Create subscription',
      'Subscribe a customer to a recurring monthly or yearly plan.',
      'customer_id:string:Customer|plan_id:string:Price plan',
    ],
    [
      'payments_cancel_subscription',
      'Cancel subscription',
      'Stop a recurring subscription now or at the period end.',
      'subscription_id:string:Subscription|at_period_end?:boolean:Wait until the period ends',
    ],
    [
      'payments_list_disputes',
      'List disputes',
      'List chargebacks and payment disputes opened by card holders.',
      'status?:string:open or closed',
    ],
    [
      'payments_payout',
      'Create payout',
      'Send money from the account balance to the bank account.',
      'amount_cents:integer:Amount|currency:string:Currency',
    ],
  ],
  crm: [
    [
      'crm_create_contact',
      'Create contact',
      'Add a person to the CRM with email, phone and company.',
      'name:string:Full name|email:string:Email address|phone?:string:Phone number|company?:string:Company',
    ],
    [
      'crm_find_contact',
      'Find contact',
      'Look up contacts by name, email or company.',
      'query:string:Name, email or company',
    ],
    [
      'crm_update_contact',
      'Update contact',
      'Change the details of an existing contact.',
      'contact_id:string:Contact|fields:string[]:field=value pairs',
    ],
    [
      'crm_create_deal',
      'Create deal',
      'Open a sales deal (opportunity) with a value and stage.',
      'title:string:Deal name|value:number:Expected revenue|stage?:string:Pipeline stage|contact_id?:string:Main contact',
    ],
    [
      'crm_move_deal',
      'Move deal stage',
      'Move a deal to another stage of the sales pipeline.',
      'deal_id:string:Deal|stage:string:New stage',
    ],
    [
      'crm_log_activity',
      'Log activity',
      'Record a call, meeting or note against a contact or deal.',
      'contact_id:string:Contact|type:string:call, meeting or note|summary:string:What happened',
    ],
    [
      'crm_list_deals',
      'List deals',
      'List open deals in the pipeline with their value and owner.',
      'owner?:string:Sales rep|stage?:string:Stage',
    ],
    [
      'crm_forecast',
      'Sales forecast',
      'Forecast revenue for the quarter from the weighted pipeline.',
      'quarter?:string:Like 2026-Q4',
    ],
    [
      'crm_create_company',
      'Create company',
      'Add an organisation account to the CRM.',
      'name:string:Company name|domain?:string:Web domain|industry?:string:Industry',
    ],
    [
      'crm_merge_contacts',
      'Merge duplicates',
      'Merge two duplicate contact records into one.',
      'keep_id:string:Contact to keep|merge_id:string:Duplicate to fold in',
    ],
  ],
  cloud: [
    [
      'cloud_list_instances',
      'List VMs',
      'List virtual machine instances with their state and IP address.',
      'region?:string:Cloud region|state?:string:running or stopped',
    ],
    [
      'cloud_start_instance',
      'Start VM',
      'Power on a stopped virtual machine.',
      'instance_id:string:Instance',
    ],
    [
      'cloud_stop_instance',
      'Stop VM',
      'Shut down a running virtual machine.',
      'instance_id:string:Instance|force?:boolean:Hard power off',
    ],
    [
      'cloud_create_instance',
      'Launch VM',
      'Launch a new virtual machine from an image and machine type.',
      'name:string:Instance name|image:string:OS image|machine_type:string:Size like e2-medium|region:string:Region',
    ],
    [
      'cloud_resize_instance',
      'Resize VM',
      'Change the CPU and memory size of a virtual machine.',
      'instance_id:string:Instance|machine_type:string:New size',
    ],
    [
      'cloud_create_bucket',
      'Create bucket',
      'Create an object storage bucket.',
      'name:string:Bucket name|region:string:Region|public?:boolean:Public read',
    ],
    ['cloud_list_buckets', 'List buckets', 'List object storage buckets and their sizes.', ''],
    [
      'cloud_get_costs',
      'Cloud costs',
      'Show the cloud bill broken down by service for a month.',
      'month:string:Like 2026-11',
    ],
    [
      'cloud_create_snapshot',
      'Snapshot disk',
      'Take a point-in-time snapshot of a VM disk.',
      'disk_id:string:Disk|name?:string:Snapshot name',
    ],
    [
      'cloud_firewall_rule',
      'Add firewall rule',
      'Open or block a port for an IP range in the network firewall.',
      'network:string:Network|port:integer:Port|source:string:CIDR range|action:string:allow or deny',
    ],
  ],
  k8s: [
    [
      'k8s_list_pods',
      'List pods',
      'List Kubernetes pods in a namespace with status and restarts.',
      'namespace?:string:Namespace|selector?:string:Label selector',
    ],
    [
      'k8s_pod_logs',
      'Pod logs',
      'Fetch the container logs of a Kubernetes pod.',
      'pod:string:Pod name|namespace?:string:Namespace|tail?:integer:Last lines only|container?:string:Container',
    ],
    [
      'k8s_scale_deployment',
      'Scale deployment',
      'Change the number of replicas of a Kubernetes deployment.',
      'deployment:string:Deployment|replicas:integer:Desired replicas|namespace?:string:Namespace',
    ],
    [
      'k8s_rollout_restart',
      'Restart deployment',
      'Restart all pods of a deployment with a rolling update.',
      'deployment:string:Deployment|namespace?:string:Namespace',
    ],
    [
      'k8s_rollback',
      'Roll back deployment',
      'Roll a deployment back to its previous revision.',
      'deployment:string:Deployment|revision?:integer:Revision to go back to',
    ],
    [
      'k8s_apply_manifest',
      'Apply manifest',
      'Apply a YAML manifest to the cluster (create or update resources).',
      'yaml:string:Manifest text|namespace?:string:Namespace',
    ],
    [
      'k8s_describe',
      'Describe resource',
      'Describe a Kubernetes resource with its events.',
      'kind:string:pod, service, deployment…|name:string:Resource name|namespace?:string:Namespace',
    ],
    [
      'k8s_exec',
      'Exec in pod',
      'Run a shell command inside a running container.',
      'pod:string:Pod|command:string[]:Command and arguments|namespace?:string:Namespace',
    ],
    ['k8s_list_nodes', 'List nodes', 'List cluster nodes with CPU and memory pressure.', ''],
    [
      'k8s_port_forward',
      'Port forward',
      'Forward a local port to a port of a pod or service.',
      'target:string:pod/name or svc/name|local_port:integer:Local port|remote_port:integer:Remote port',
    ],
  ],
  monitoring: [
    [
      'monitoring_query_metrics',
      'Query metrics',
      'Run a PromQL query over time-series metrics.',
      'query:string:PromQL expression|range_minutes?:integer:Time range',
    ],
    [
      'monitoring_list_alerts',
      'List alerts',
      'List alerts that are currently firing.',
      'severity?:string:critical, warning or info',
    ],
    [
      'monitoring_silence_alert',
      'Silence alert',
      'Mute an alert for a while during maintenance.',
      'alert:string:Alert name|minutes:integer:How long',
    ],
    [
      'monitoring_create_dashboard',
      'Create dashboard',
      'Create a dashboard of graphs from metric queries.',
      'title:string:Dashboard title|queries:string[]:One query per panel',
    ],
    [
      'monitoring_uptime',
      'Uptime check',
      'Report the availability percentage of a website over a period.',
      'url:string:Checked URL|days?:integer:Period',
    ],
    [
      'monitoring_search_logs',
      'Search logs',
      'Search application logs for errors or text in a time window.',
      'query:string:Text or expression|service?:string:Service name|since_minutes?:integer:How far back',
    ],
    [
      'monitoring_trace',
      'Get trace',
      'Show the spans of one distributed trace to find latency.',
      'trace_id:string:Trace id',
    ],
    [
      'monitoring_create_alert_rule',
      'Create alert rule',
      'Alert when a metric crosses a threshold.',
      'name:string:Rule name|query:string:Metric query|threshold:number:Limit|notify:string:Channel to notify',
    ],
    [
      'monitoring_incident_open',
      'Open incident',
      'Declare an incident and page the on-call engineer.',
      'title:string:What is broken|severity:string:sev1, sev2 or sev3',
    ],
    [
      'monitoring_oncall',
      'Who is on call',
      'Show who is on call now for a team rotation.',
      'team?:string:Team',
    ],
  ],
  docs: [
    [
      'docs_create_page',
      'Create page',
      'Create a wiki page in a documentation space.',
      'space:string:Space key|title:string:Page title|content:string:Page body in Markdown|parent?:string:Parent page',
    ],
    ['docs_get_page', 'Get page', 'Read a wiki page by title or id.', 'page:string:Title or id'],
    [
      'docs_update_page',
      'Edit page',
      'Replace or append to the content of a wiki page.',
      'page:string:Title or id|content:string:New content|append?:boolean:Append instead of replace',
    ],
    [
      'docs_search',
      'Search wiki',
      'Search documentation pages for words.',
      'query:string:Words|space?:string:Only this space',
    ],
    ['docs_list_spaces', 'List spaces', 'List documentation spaces.', ''],
    [
      'docs_export_pdf',
      'Export page to PDF',
      'Render a wiki page as a PDF file.',
      'page:string:Title or id|path:string:PDF to write',
    ],
    [
      'docs_page_history',
      'Page history',
      'Show who changed a page and when.',
      'page:string:Title or id',
    ],
    [
      'docs_comment',
      'Comment on page',
      'Leave a comment on a wiki page.',
      'page:string:Title or id|text:string:Comment',
    ],
    [
      'docs_move_page',
      'Move page',
      'Move a page under another parent or space.',
      'page:string:Title or id|new_parent:string:Parent page or space',
    ],
    [
      'docs_create_template',
      'Create page template',
      'Save a reusable template for new pages.',
      'name:string:Template name|content:string:Template body',
    ],
  ],
  sheets: [
    [
      'sheets_create',
      'Create spreadsheet',
      'Create a new spreadsheet with named sheets.',
      'title:string:Spreadsheet title|sheets?:string[]:Sheet names',
    ],
    [
      'sheets_read_range',
      'Read cells',
      'Read the values of a cell range like A1:D20.',
      'spreadsheet_id:string:Spreadsheet|range:string:A1 notation',
    ],
    [
      'sheets_write_range',
      'Write cells',
      'Write values into a range of cells.',
      'spreadsheet_id:string:Spreadsheet|range:string:A1 notation|values:string[]:Rows as comma-separated values',
    ],
    [
      'sheets_append_rows',
      'Append rows',
      'Append rows at the end of a table in a sheet.',
      'spreadsheet_id:string:Spreadsheet|sheet:string:Sheet name|rows:string[]:Rows as comma-separated values',
    ],
    [
      'sheets_add_chart',
      'Add chart',
      'Insert a bar, line or pie chart built from a range.',
      'spreadsheet_id:string:Spreadsheet|range:string:Data range|type:string:bar, line or pie',
    ],
    [
      'sheets_formula',
      'Set formula',
      'Put a formula such as SUM or VLOOKUP into a cell.',
      'spreadsheet_id:string:Spreadsheet|cell:string:Cell like E2|formula:string:Formula text',
    ],
    [
      'sheets_sort',
      'Sort range',
      'Sort the rows of a range by a column.',
      'spreadsheet_id:string:Spreadsheet|range:string:Range|column:string:Sort column|descending?:boolean:Largest first',
    ],
    [
      'sheets_filter',
      'Filter rows',
      'Show only the rows of a sheet that match a condition.',
      'spreadsheet_id:string:Spreadsheet|sheet:string:Sheet|condition:string:Like C > 100',
    ],
    [
      'sheets_pivot',
      'Pivot table',
      'Summarise a table with a pivot table grouped by columns.',
      'spreadsheet_id:string:Spreadsheet|source:string:Source range|rows:string[]:Group by|values:string[]:Columns to sum',
    ],
    [
      'sheets_share',
      'Share spreadsheet',
      'Give people access to a spreadsheet.',
      'spreadsheet_id:string:Spreadsheet|emails:string[]:People|role:string:viewer or editor',
    ],
  ],
  weather: [
    [
      'weather_current',
      'Current weather',
      'Current temperature, wind and conditions for a city.',
      'city:string:City name|units?:string:metric or imperial',
    ],
    [
      'weather_forecast',
      'Weather forecast',
      'Daily weather forecast for the next days: rain, temperature, wind.',
      'city:string:City name|days?:integer:Days ahead, up to 14',
    ],
    [
      'weather_hourly',
      'Hourly forecast',
      'Hour by hour forecast for the next 48 hours.',
      'city:string:City name',
    ],
    [
      'weather_alerts',
      'Weather warnings',
      'Severe weather warnings such as storms or floods for a region.',
      'region:string:Region or city',
    ],
    [
      'weather_air_quality',
      'Air quality',
      'Air quality index and pollen and pollution levels.',
      'city:string:City name',
    ],
    [
      'weather_history',
      'Past weather',
      'Observed weather on a past date.',
      'city:string:City name|date:string:ISO date',
    ],
    ['weather_uv_index', 'UV index', 'Sun UV index and sunburn risk.', 'city:string:City name'],
    [
      'weather_sunrise',
      'Sunrise and sunset',
      'Sunrise, sunset and daylight hours for a place and date.',
      'city:string:City name|date?:string:ISO date',
    ],
    [
      'weather_marine',
      'Marine forecast',
      'Wave height, tides and sea temperature for a coast.',
      'location:string:Coast or port',
    ],
    [
      'weather_climate',
      'Climate normals',
      'Average monthly temperature and rainfall for a city.',
      'city:string:City name|month?:integer:Month 1-12',
    ],
  ],
  maps: [
    [
      'maps_geocode',
      'Geocode address',
      'Turn a street address into latitude and longitude.',
      'address:string:Street address',
    ],
    [
      'maps_reverse_geocode',
      'Reverse geocode',
      'Turn latitude and longitude into the nearest address.',
      'lat:number:Latitude|lon:number:Longitude',
    ],
    [
      'maps_directions',
      'Directions',
      'Route and travel time between two places by car, bike, foot or transit.',
      'origin:string:Start|destination:string:End|mode?:string:driving, cycling, walking or transit',
    ],
    [
      'maps_nearby',
      'Nearby places',
      'Find restaurants, shops or other places near a location.',
      'location:string:Address or lat,lon|category:string:Like restaurant or pharmacy|radius_m?:integer:Search radius',
    ],
    [
      'maps_distance_matrix',
      'Distance matrix',
      'Travel distances and times between many origins and destinations.',
      'origins:string[]:Starts|destinations:string[]:Ends',
    ],
    [
      'maps_place_details',
      'Place details',
      'Opening hours, phone number and reviews of a place.',
      'place_id:string:Place',
    ],
    [
      'maps_timezone',
      'Time zone of place',
      'The time zone and local time at a location.',
      'location:string:Address or lat,lon',
    ],
    [
      'maps_static_image',
      'Map image',
      'Render a map image of an area with markers.',
      'center:string:Address or lat,lon|zoom?:integer:Zoom level|markers?:string[]:Marker positions',
    ],
    [
      'maps_elevation',
      'Elevation',
      'Height above sea level of a point.',
      'lat:number:Latitude|lon:number:Longitude',
    ],
    [
      'maps_traffic',
      'Traffic',
      'Current traffic congestion and incidents on a route.',
      'origin:string:Start|destination:string:End',
    ],
  ],
  shop: [
    [
      'shop_list_products',
      'List products',
      'List products in the online store catalog with price and stock.',
      'category?:string:Category|in_stock?:boolean:Only available products',
    ],
    [
      'shop_create_product',
      'Create product',
      'Add a product to the store with price and description.',
      'name:string:Product name|price:number:Price|description?:string:Description|sku?:string:Stock keeping unit',
    ],
    [
      'shop_update_inventory',
      'Update stock',
      'Set the inventory quantity of a product in a warehouse.',
      'sku:string:Product SKU|quantity:integer:Units in stock|warehouse?:string:Warehouse',
    ],
    [
      'shop_list_orders',
      'List orders',
      'List customer orders by status: pending, shipped or delivered.',
      'status?:string:Order status|since?:string:ISO date',
    ],
    [
      'shop_get_order',
      'Get order',
      'Show an order with its items, customer and shipping address.',
      'order_id:string:Order',
    ],
    [
      'shop_fulfill_order',
      'Ship order',
      'Mark an order as shipped with a carrier tracking number.',
      'order_id:string:Order|carrier:string:Carrier|tracking_number:string:Tracking number',
    ],
    [
      'shop_cancel_order',
      'Cancel order',
      'Cancel an order and restock its items.',
      'order_id:string:Order|reason?:string:Why',
    ],
    [
      'shop_create_discount',
      'Create discount code',
      'Create a coupon code for a percentage or fixed discount.',
      'code:string:Coupon code|percent_off?:number:Percent|amount_off?:number:Fixed amount|expires?:string:ISO date',
    ],
    [
      'shop_track_shipment',
      'Track package',
      'Follow where a parcel is with its tracking number.',
      'tracking_number:string:Tracking number|carrier?:string:Carrier',
    ],
    [
      'shop_sales_report',
      'Sales report',
      'Revenue, orders and best-selling products over a period.',
      'from:string:Start date|to:string:End date',
    ],
  ],
  hr: [
    [
      'hr_list_employees',
      'List employees',
      'List people in the company directory by team or location.',
      'team?:string:Team|location?:string:Office',
    ],
    [
      'hr_get_employee',
      'Employee profile',
      'Show an employee profile: role, manager, start date.',
      'employee_id:string:Employee',
    ],
    [
      'hr_request_time_off',
      'Request vacation',
      'Request paid time off (vacation or sick leave) for dates.',
      'employee_id:string:Employee|from:string:First day|to:string:Last day|type?:string:vacation or sick',
    ],
    [
      'hr_approve_time_off',
      'Approve leave',
      'Approve or reject a time-off request.',
      'request_id:string:Request|approve:boolean:true to approve',
    ],
    [
      'hr_time_off_balance',
      'Leave balance',
      'How many vacation days an employee has left this year.',
      'employee_id:string:Employee',
    ],
    [
      'hr_onboard',
      'Onboard new hire',
      'Start onboarding a new hire: accounts, laptop and checklist.',
      'name:string:Full name|start_date:string:First day|team:string:Team|role:string:Job title',
    ],
    [
      'hr_offboard',
      'Offboard employee',
      'Remove a leaving employee’s access and collect equipment.',
      'employee_id:string:Employee|last_day:string:Last day',
    ],
    [
      'hr_org_chart',
      'Org chart',
      'Show who reports to whom under a manager.',
      'manager_id?:string:Top of the chart',
    ],
    [
      'hr_open_position',
      'Open job position',
      'Create a job opening to start recruiting.',
      'title:string:Job title|team:string:Team|description:string:Job description',
    ],
    [
      'hr_payroll_summary',
      'Payroll summary',
      'Total salaries and taxes for a pay period.',
      'period:string:Like 2026-11',
    ],
  ],
  translate: [
    [
      'translate_text',
      'Translate text',
      'Translate text from one language to another.',
      'text:string:Text to translate|target:string:Target language code like de or ja|source?:string:Source language, detected if omitted',
    ],
    [
      'translate_detect_language',
      'Detect language',
      'Detect which language a text is written in.',
      'text:string:Text',
    ],
    [
      'translate_document',
      'Translate document',
      'Translate a whole document file and keep its layout.',
      'path:string:Document file|target:string:Target language',
    ],
    [
      'translate_list_languages',
      'Supported languages',
      'List the languages translation supports.',
      '',
    ],
    [
      'translate_glossary',
      'Create glossary',
      'Define fixed translations for product terms.',
      'name:string:Glossary name|entries:string[]:source=target pairs',
    ],
    [
      'translate_transliterate',
      'Transliterate',
      'Convert text between scripts, like Cyrillic to Latin.',
      'text:string:Text|to_script:string:Target script',
    ],
    [
      'translate_speech_to_text',
      'Transcribe audio',
      'Transcribe spoken audio into text.',
      'audio_path:string:Audio file|language?:string:Spoken language',
    ],
    [
      'translate_text_to_speech',
      'Text to speech',
      'Read text aloud into an audio file with a chosen voice.',
      'text:string:Text|voice?:string:Voice name|path:string:Audio file to write',
    ],
    [
      'translate_spellcheck',
      'Spell check',
      'Find spelling and grammar mistakes in a text.',
      'text:string:Text|language?:string:Language',
    ],
    [
      'translate_summarize',
      'Summarise text',
      'Condense a long text into a short summary.',
      'text:string:Text|max_words?:integer:Summary length',
    ],
  ],
  media: [
    [
      'media_resize_image',
      'Resize image',
      'Scale an image to a width and height.',
      'path:string:Image file|width:integer:Pixels|height?:integer:Pixels',
    ],
    [
      'media_convert_image',
      'Convert image format',
      'Convert an image between PNG, JPEG and WebP.',
      'path:string:Image file|format:string:png, jpeg or webp',
    ],
    [
      'media_crop_image',
      'Crop image',
      'Cut a rectangle out of an image.',
      'path:string:Image file|x:integer:Left|y:integer:Top|width:integer:Width|height:integer:Height',
    ],
    [
      'media_ocr',
      'Extract text from image',
      'Read the printed text in a photo or scan (OCR).',
      'path:string:Image file|language?:string:Language',
    ],
    [
      'media_describe_image',
      'Describe image',
      'Describe what a picture shows in words.',
      'path:string:Image file',
    ],
    [
      'media_transcode_video',
      'Transcode video',
      'Convert a video to another codec or resolution.',
      'path:string:Video file|codec:string:h264, h265 or av1|height?:integer:Output height',
    ],
    [
      'media_video_thumbnail',
      'Video thumbnail',
      'Grab a frame of a video as a thumbnail image.',
      'path:string:Video file|at_seconds:number:Time of the frame',
    ],
    [
      'media_trim_audio',
      'Trim audio',
      'Cut an audio file to a start and end time.',
      'path:string:Audio file|start:number:Seconds|end:number:Seconds',
    ],
    [
      'media_generate_qr',
      'Generate QR code',
      'Make a QR code image for a URL or text.',
      'data:string:URL or text|path:string:PNG to write',
    ],
    [
      'media_compress_pdf',
      'Compress PDF',
      'Shrink a PDF file by downsampling its images.',
      'path:string:PDF file|quality?:string:screen, ebook or print',
    ],
  ],
};

/** A parameter spec string as a JSON Schema object (see {@link Spec}). */
function inputSchema(params: string): JsonSchemaObject {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of params === '' ? [] : params.split('|')) {
    const [rawName, type, description] = part.split(':');
    const optional = rawName.endsWith('?');
    const name = optional ? rawName.slice(0, -1) : rawName;
    properties[name] =
      type === 'string[]'
        ? { type: 'array', items: { type: 'string' }, description }
        : { type, description };
    if (!optional) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Every tool spec, for tests that check the catalog against its source. */
export const TOOL_SPECS: readonly Spec[] = Object.values(SERVICES).flat();

export function register(server: PluginServer): void {
  for (const [name, title, text, params] of TOOL_SPECS) {
    server.registerTool(
      name,
      { title, description: text, inputSchema: inputSchema(params) },
      (args: Record<string, unknown>) => ({
        content: [{ type: 'text', text: `${name}: ${JSON.stringify(args)}` }],
        structuredContent: { tool: name, arguments: args },
      }),
    );
  }
}

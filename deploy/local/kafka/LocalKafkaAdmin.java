// Tiny admin helper for deploy/local/stack.sh, run in ONE JVM (Java single-file
// source launch) instead of one `kafka-topics` JVM per topic:
//
//   java -cp '.local/kafka/libs/*' deploy/local/kafka/LocalKafkaAdmin.java \
//        <bootstrap> <timeout-seconds> [topics-file [replication-factor [min-insync-replicas]]]
//
// 1. Waits (polling, until the deadline) until the broker answers metadata
//    requests and reports itself in the cluster.
// 2. If a topics file is given (lines "name partitions retention-ms|compact"; '#' comments
//    and blank lines ignored), creates the missing topics with their retention.ms,
//    the replication factor (default 1) and min.insync.replicas (default: the broker's) in a single
//    CreateTopics request, then waits until every partition of every listed
//    topic has a leader and at least min.insync.replicas in-sync replicas (so
//    producers with acks=all can write at once).
// Exit 0 on success, 1 on timeout or error. Messages go to stderr.
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;

public class LocalKafkaAdmin {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: LocalKafkaAdmin <bootstrap> <timeout-seconds> [topics-file [replication-factor [min-insync-replicas]]]");
            System.exit(2);
        }
        String bootstrap = args[0];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[1]));
        List<String[]> lines = args.length > 2 ? readTopicLines(Path.of(args[2])) : List.of();
        Map<String, Integer> wanted = new LinkedHashMap<>();
        Map<String, String> retentionMs = new LinkedHashMap<>();
        for (String[] l : lines) {
            wanted.put(l[0], Integer.parseInt(l[1]));
            // "compact": a compacted topic (cleanup.policy=compact), which has no retention.
            retentionMs.put(l[0], l[2].equals("compact") ? l[2] : String.valueOf(Long.parseLong(l[2])));
        }
        short replicationFactor = args.length > 3 ? Short.parseShort(args[3]) : 1;
        int minInsync = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        Map<String, String> topicConfigs = args.length > 4 ? Map.of("min.insync.replicas", args[4]) : Map.of();

        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "local-stack-admin");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "200");

        Admin admin = Admin.create(p);
        try {
            // 1. Broker answers metadata and is registered.
            Set<String> existing = null;
            Exception last = null;
            while (existing == null) {
                try {
                    if (admin.describeCluster().nodes().get(remainingMs(deadline), TimeUnit.MILLISECONDS).isEmpty()) {
                        throw new IllegalStateException("no broker registered yet");
                    }
                    existing = admin.listTopics().names().get(remainingMs(deadline), TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    last = e;
                    pause(deadline, "broker at " + bootstrap + " did not answer", last);
                }
            }
            if (wanted.isEmpty()) {
                System.err.println("[stack] kafka: broker at " + bootstrap + " answers (" + existing.size() + " topics)");
                admin.close(Duration.ofSeconds(5));
                return;
            }

            // 2. Create the missing topics in one request.
            List<NewTopic> toCreate = new ArrayList<>();
            for (Map.Entry<String, Integer> t : wanted.entrySet()) {
                if (!existing.contains(t.getKey())) {
                    Map<String, String> configs = new LinkedHashMap<>(topicConfigs);
                    String retention = retentionMs.get(t.getKey());
                    if (retention.equals("compact")) configs.put("cleanup.policy", "compact");
                    else configs.put("retention.ms", retention);
                    toCreate.add(new NewTopic(t.getKey(), t.getValue(), replicationFactor).configs(configs));
                }
            }
            int created = 0;
            if (!toCreate.isEmpty()) {
                CreateTopicsResult res = admin.createTopics(toCreate);
                for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<Void>> f : res.values().entrySet()) {
                    try {
                        f.getValue().get(remainingMs(deadline), TimeUnit.MILLISECONDS);
                        created++;
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw new RuntimeException("creating topic " + f.getKey() + ": " + e.getCause(), e.getCause());
                        }
                    }
                }
            }

            // 3. Every partition of every listed topic has a leader and enough in-sync replicas.
            while (true) {
                String problem = null;
                try {
                    Map<String, TopicDescription> d = admin.describeTopics(wanted.keySet()).allTopicNames()
                            .get(remainingMs(deadline), TimeUnit.MILLISECONDS);
                    for (Map.Entry<String, Integer> t : wanted.entrySet()) {
                        TopicDescription td = d.get(t.getKey());
                        if (td.partitions().size() < t.getValue()) {
                            System.err.println("[stack] kafka: WARNING topic " + t.getKey() + " exists with "
                                    + td.partitions().size() + " partitions, topics file asks for " + t.getValue());
                        }
                        for (TopicPartitionInfo pi : td.partitions()) {
                            if (pi.leader() == null || pi.leader().isEmpty()) problem = t.getKey() + "-" + pi.partition() + " has no leader";
                            else if (pi.isr().size() < minInsync) problem = t.getKey() + "-" + pi.partition() + " has " + pi.isr().size() + " in-sync replicas";
                        }
                    }
                } catch (Exception e) {
                    problem = e.toString();
                    last = e;
                }
                if (problem == null) break;
                pause(deadline, "topics not ready: " + problem, last);
            }
            System.err.println("[stack] kafka: " + wanted.size() + " topics ready (" + created + " created with replication factor "
                    + replicationFactor + ", " + (wanted.size() - created) + " already existed)");
        } catch (RuntimeException e) {
            System.err.println("[stack] kafka: ERROR " + e.getMessage());
            admin.close(Duration.ZERO); // don't wait for calls still pending
            System.exit(1);
        }
        admin.close(Duration.ofSeconds(5));
    }

    static List<String[]> readTopicLines(Path file) throws Exception {
        List<String[]> m = new ArrayList<>();
        for (String raw : Files.readAllLines(file)) {
            String line = raw.replaceAll("#.*", "").trim();
            if (line.isEmpty()) continue;
            String[] parts = line.split("\\s+");
            if (parts.length != 3) throw new IllegalArgumentException(file + ": bad line (name partitions retention-ms|compact): " + raw);
            m.add(parts);
        }
        return m;
    }

    static long remainingMs(long deadline) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    static void pause(long deadline, String what, Exception last) {
        if (last != null && String.valueOf(last.getMessage()).contains("AdminClient thread has exited")) {
            // e.g. the port is served by something that does not speak Kafka
            throw new RuntimeException(what + " (the admin client gave up: " + last.getMessage() + ")");
        }
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250) >= deadline) {
            throw new RuntimeException("timed out: " + what + (last != null ? " (last error: " + last + ")" : ""));
        }
        try {
            Thread.sleep(250);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw new RuntimeException("interrupted");
        }
    }
}
